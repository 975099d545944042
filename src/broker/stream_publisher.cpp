#include "broker/stream_publisher.hpp"

#include <openssl/sha.h>

#include <algorithm>

#include "broker/publish_script.hpp"
#include "broker/replies.hpp"

namespace sluice::broker {

namespace {

// A request's tag: the script's load or a publish.
constexpr std::uint64_t kLoad = 1;
constexpr std::uint64_t kPublish = 2;
constexpr std::uint64_t kClaim = 3;

std::string sha1_hex(std::string_view text) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const unsigned char byte : digest) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 15]);
  }
  return hex;
}

bool is_noscript(std::string_view error) { return error.starts_with("NOSCRIPT"); }

}  // namespace

const char* to_string(PublishStatus status) {
  switch (status) {
    case PublishStatus::ok:
      return "published";
    case PublishStatus::unavailable:
      return "Redis is not reachable";
    case PublishStatus::busy:
      return "too many publishes wait for Redis";
    case PublishStatus::too_large:
      return "the event is larger than broker.max_pending_bytes";
    case PublishStatus::refused:
      return "Redis refused the event";
    case PublishStatus::unknown:
      return "Redis did not answer; the event may or may not have been published";
    case PublishStatus::misplaced:
      return "this Redis is another shard of broker.url to the other nodes";
  }
  return "?";
}

StreamPublisher::StreamPublisher(RedisLink& link, std::string prefix, std::uint64_t max_len, std::uint64_t shard,
                                 std::uint64_t shards)
    : link_(link),
      prefix_(std::move(prefix)),
      max_len_(std::max<std::uint64_t>(max_len, 1)),
      mark_(std::to_string(shard) + "/" + std::to_string(shards)),
      sha_(sha1_hex(kPublishScript)),
      waiting_(std::max<std::size_t>(link.limits().max_pending, 1)) {
  link_.set_listener(this);
  if (link_.state() == LinkState::up) link_up();
}

StreamPublisher::~StreamPublisher() {
  link_.set_listener(nullptr);
  link_.forget(*this);
}

// First on every connection, so every publish after it finds the script.
void StreamPublisher::link_up() {
  load_script();
  claim_due_ = true;
  claim_shard();
}

// Asked again on every connection: the instance may have been emptied and
// marked anew, or the mark deleted by an operator who moved shards. A
// link with no room for it yet (broker.max_pending), or whose answer never
// came, asks again at the next publish. So does a node found misplaced,
// once that answer is in: one question in flight at a time, and the node
// publishes again as soon as the operator has set the mark right.
void StreamPublisher::claim_shard() {
  if (!claim_due_) return;
  write_claim_shard(command_, prefix_, mark_);
  if (link_.submit(command_, *this, kClaim) == Submit::accepted) claim_due_ = false;
}

// nil: this node marked it; the same INDEX/COUNT: agreed. A Redis before
// 7.0 (no SET ... NX GET) answers a syntax error, and the check is not
// made. A key of another type where the mark goes cannot be checked
// either: nothing is published there until it is deleted, rather than
// the check being dropped without a word.
void StreamPublisher::on_claim(const redisReply* reply) {
  if (reply != nullptr && reply->type == REDIS_REPLY_ERROR &&
      std::string_view(reply->str, reply->len).starts_with("WRONGTYPE")) {
    misplaced_ = prefix_ + "$shard, where the nodes mark this instance's place in broker.url, holds a key that is "
                 "not a string: the order cannot be checked until it is deleted";
    claim_due_ = true;
    return;
  }
  if (reply == nullptr || reply->type != REDIS_REPLY_STRING) {
    misplaced_.clear();
    return;
  }
  const std::string_view mark(reply->str, reply->len);
  if (mark == mark_) {
    misplaced_.clear();
    return;
  }
  // Redis's text goes into a log line and /healthz: printable ASCII only.
  std::string theirs;
  for (const char c : mark.substr(0, 24)) theirs.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  misplaced_ = "it is marked shard " + theirs + " (index/count) of broker.url by other nodes, and is " + mark_ +
               " here: every node must list the same instances in the same order (" + prefix_ + "$shard holds the "
               "mark)";
  claim_due_ = true;
}

void StreamPublisher::link_down(std::string_view) { loading_ = false; }

// Once at a time: the publishes sent before a reload all come back
// NOSCRIPT, and one load serves them all.
void StreamPublisher::load_script() {
  if (loading_) return;
  write_script_load(command_, kPublishScript);
  if (link_.submit(command_, *this, kLoad) != Submit::accepted) {
    link_.reset("cannot send SCRIPT LOAD");
    return;
  }
  loading_ = true;
}

PublishStatus StreamPublisher::publish(std::string_view topic, const EventFields& fields, PublishHandler& handler,
                                       std::uint64_t tag) {
  if (count_ == waiting_.size()) return PublishStatus::busy;
  claim_shard();
  if (!misplaced_.empty()) return PublishStatus::misplaced;
  write_publish(command_, sha_, prefix_, topic, max_len_, fields);
  switch (link_.submit(command_, *this, kPublish)) {
    case Submit::accepted:
      break;
    case Submit::unavailable:
      return PublishStatus::unavailable;
    case Submit::full:
      return PublishStatus::busy;
    case Submit::too_large:
      return PublishStatus::too_large;
  }
  waiting_[(head_ + count_) % waiting_.size()] = Waiting{&handler, tag};
  ++count_;
  return PublishStatus::ok;
}

void StreamPublisher::on_reply(std::uint64_t kind, Outcome outcome, const redisReply* reply) {
  if (kind == kClaim) {
    if (outcome == Outcome::reply) {
      on_claim(reply);
    } else {
      claim_due_ = true;
    }
    return;
  }
  if (kind == kLoad) {
    loading_ = false;
    if (outcome != Outcome::reply) return;
    ++loads_;
    const ShaReply loaded = parse_sha(reply);
    if (loaded.status != ReplyStatus::ok || loaded.sha != sha_) link_.reset("SCRIPT LOAD answered another SHA-1");
    return;
  }
  const Waiting waiting = waiting_[head_];
  head_ = (head_ + 1) % waiting_.size();
  --count_;
  if (outcome != Outcome::reply) {
    waiting.handler->on_published(waiting.tag, PublishStatus::unknown, {}, to_string(outcome));
    return;
  }
  const IdReply published = parse_published(reply);
  if (published.status == ReplyStatus::ok) {
    waiting.handler->on_published(waiting.tag, PublishStatus::ok, published.id, {});
    return;
  }
  if (published.status != ReplyStatus::redis_error) {
    // Something answered that is not an id: whether the event went in
    // cannot be told.
    waiting.handler->on_published(waiting.tag, PublishStatus::unknown, {}, to_string(published.status));
    return;
  }
  if (is_noscript(published.error)) load_script();
  waiting.handler->on_published(waiting.tag, PublishStatus::refused, {}, published.error);
}

}  // namespace sluice::broker
