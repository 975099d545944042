// Owns: RedisBroker, the Broker of one loop over one or more Redis
// instances: per instance, a command connection (publishes, replays, the
// reader's CLIENT UNBLOCK) and a reading connection, with the publisher,
// reader and replayer that use them. A topic goes to the instance
// shard_of() names, the same on every node.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/broker.hpp"
#include "broker/shard_map.hpp"

namespace sluice::broker {

namespace {

class RedisBroker final : public Broker {
 public:
  RedisBroker(io::Loop& loop, const BrokerConfig& config, StreamSink& sink) {
    ReaderLimits reader = config.reader;
    reader.prefix = config.prefix;
    for (const Endpoint& endpoint : config.endpoints) {
      shards_.push_back(
          std::make_unique<Shard>(loop, endpoint, shards_.size(), config.endpoints.size(), config, reader, sink));
    }
  }

  PublishStatus publish(std::string_view topic, const EventFields& event, PublishHandler& handler,
                        std::uint64_t tag) override {
    return shard(topic).publisher.publish(topic, event, handler, tag);
  }
  FollowStatus follow(std::string_view topic) override { return shard(topic).reader.follow(topic); }
  FollowStatus follow_from(std::string_view topic, StreamId position) override {
    return shard(topic).reader.follow_from(topic, position);
  }
  void unfollow(std::string_view topic) override { shard(topic).reader.unfollow(topic); }
  void resume(std::string_view topic) override { shard(topic).reader.resume(topic); }
  ReplayStart replay(std::string_view topic, StreamId after, StreamId upto, ReplayHandler& handler,
                     std::uint64_t tag) override {
    return shard(topic).replayer.replay(topic, after, upto, handler, tag);
  }
  std::optional<Unreachable> unreachable() const override {
    for (const auto& shard : shards_) {
      const auto address = [&] { return shard->address.host + ":" + std::to_string(shard->address.port); };
      for (const RedisLink* link : {&shard->command, &shard->reading}) {
        if (link->state() != LinkState::up) return Unreachable{address(), link->last_error()};
      }
      if (!shard->publisher.misplaced().empty()) return Unreachable{address(), shard->publisher.misplaced(), true};
    }
    return std::nullopt;
  }

  BrokerCounts counts() const override {
    BrokerCounts c;
    for (const auto& shard : shards_) {
      c.link_failures += shard->command.failures() + shard->reading.failures();
      c.unusable_entries += shard->reader.unusable();
    }
    return c;
  }

 private:
  // Declared so that the users of the connections go before them.
  struct Shard {
    Shard(io::Loop& loop, const Endpoint& endpoint, std::size_t index, std::size_t count, const BrokerConfig& config,
          const ReaderLimits& reader_limits, StreamSink& sink)
        : address(endpoint),
          command(loop, endpoint, config.link, nullptr),
          reading(loop, endpoint, config.link, nullptr),
          publisher(command, config.prefix, config.max_len, index, count),
          reader(reading, &command, reader_limits, sink),
          replayer(command, config.prefix, config.max_replay, reader_limits.max_data) {}

    Endpoint address;  // for /healthz's answer
    RedisLink command;
    RedisLink reading;
    StreamPublisher publisher;
    StreamReader reader;
    StreamReplayer replayer;
  };

  Shard& shard(std::string_view topic) { return *shards_[shard_of(topic, shards_.size())]; }

  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace

std::unique_ptr<Broker> make_redis_broker(io::Loop& loop, const BrokerConfig& config, StreamSink& sink) {
  return std::make_unique<RedisBroker>(loop, config, sink);
}

}  // namespace sluice::broker
