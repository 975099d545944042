#include "broker/stream_reader.hpp"

#include <algorithm>

#include "broker/continuity.hpp"

namespace sluice::broker {

namespace {

// A request's tag: what it was, the slot it was for, and the follow (or
// read) it belonged to, so that a late answer about a topic unfollowed in
// the meantime is recognised and dropped.
std::uint64_t tag_of(std::uint8_t kind, std::size_t index, std::uint32_t serial) {
  return (std::uint64_t{kind} << 56) | (std::uint64_t{index} << 32) | serial;
}
std::uint8_t kind_of(std::uint64_t tag) { return static_cast<std::uint8_t>(tag >> 56); }
std::size_t index_of(std::uint64_t tag) { return static_cast<std::size_t>((tag >> 32) & 0xFFFFFF); }
std::uint32_t serial_of(std::uint64_t tag) { return static_cast<std::uint32_t>(tag); }

// An UNBLOCK that finds the read not yet blocked (it was still on its way)
// is sent again, a few times; past that the read's own wait bounds the delay.
constexpr int kMaxUnblockTries = 8;
// Bytes a read needs besides the topics' names: its head, and per topic
// the key prefix, an id and the RESP framing of both.
constexpr std::size_t kReadHead = 128;
constexpr std::size_t kPerTopic = kMaxStreamIdText + 32;

}  // namespace

StreamReader::StreamReader(RedisLink& link, RedisLink* unblocker, ReaderLimits limits, StreamSink& sink)
    : link_(link),
      unblocker_(unblocker),
      limits_(std::move(limits)),
      sink_(sink),
      topics_(limits_.max_topics),
      count_(std::max<std::size_t>(limits_.read_count, 1)) {
  link_.set_listener(this);
  if (link_.state() == LinkState::up) link_up();
}

StreamReader::~StreamReader() {
  link_.set_listener(nullptr);
  link_.forget(*this);
  if (unblocker_ != nullptr) unblocker_->forget(*this);
}

FollowStatus StreamReader::follow(std::string_view topic) { return add(topic, false, {}); }

FollowStatus StreamReader::follow_from(std::string_view topic, StreamId position) {
  return add(topic, true, position);
}

std::size_t StreamReader::read_bytes_with(std::string_view topic) const {
  return kReadHead + (topics_.size() + 1) * (limits_.prefix.size() + kPerTopic) + name_bytes_ + topic.size();
}

FollowStatus StreamReader::add(std::string_view topic, bool has_position, StreamId position) {
  if (topics_.find(topic) != nullptr) return FollowStatus::already;
  if (read_bytes_with(topic) > link_.limits().max_pending_bytes) return FollowStatus::full;
  Followed* slot = topics_.add(topic);
  if (slot == nullptr) return FollowStatus::full;
  slot->has_position = has_position;
  slot->position = position;
  name_bytes_ += topic.size();
  locate_waiting();
  cut_read_short();
  return FollowStatus::ok;
}

void StreamReader::unfollow(std::string_view topic) {
  if (topics_.find(topic) == nullptr) return;
  name_bytes_ -= topic.size();
  topics_.remove(topic);
}

// Every topic is checked again on a new connection: Redis may have lost,
// replaced or rewound streams while the reader was away.
void StreamReader::link_up() {
  client_id_ = -1;
  relocated_for_type_ = false;
  write_client_id(command_);
  (void)link_.submit(command_, *this, tag_of(kClientId, 0, 0));
  locate_waiting();
  maybe_read();
}

// Every request of the reader has been answered link_lost by now. A held
// topic stays held, and is checked when it is resumed.
void StreamReader::link_down(std::string_view) {
  for (std::size_t i = 0; i < topics_.slot_count(); ++i) {
    Followed& slot = topics_[i];
    if (slot.phase == Followed::Phase::held) {
      slot.check_on_resume = true;
    } else {
      slot.phase = Followed::Phase::to_locate;
    }
  }
  if (link_.answer_too_large()) count_ = std::max<std::size_t>(count_ / 4, 1);
}

void StreamReader::resume(std::string_view topic) {
  Followed* slot = topics_.find(topic);
  if (slot == nullptr || slot->phase != Followed::Phase::held) return;
  slot->phase = slot->check_on_resume ? Followed::Phase::to_locate : Followed::Phase::reading;
  slot->check_on_resume = false;
  locate_waiting();
  cut_read_short();
  maybe_read();
}

void StreamReader::locate_waiting() {
  if (link_.state() != LinkState::up) return;
  for (std::size_t i = 0; i < topics_.slot_count(); ++i) {
    Followed& slot = topics_[i];
    if (slot.topic == nullptr || slot.phase != Followed::Phase::to_locate) continue;
    write_newest(command_, limits_.prefix, *slot.topic);
    // Refused when too many requests wait: the rest go as answers come.
    if (link_.submit(command_, *this, tag_of(kLocate, i, slot.serial)) != Submit::accepted) return;
    slot.phase = Followed::Phase::locating;
    ++locating_;
  }
}

void StreamReader::on_reply(std::uint64_t tag, Outcome outcome, const redisReply* reply) {
  const redisReply* answer = outcome == Outcome::reply ? reply : nullptr;
  switch (kind_of(tag)) {
    case kClientId:
      if (const IntegerReply id = parse_integer(answer); id.status == ReplyStatus::ok) client_id_ = id.value;
      if (locating_ > 0) cut_read_short();
      break;
    case kLocate:
      --locating_;
      on_located(index_of(tag), serial_of(tag), answer);
      locate_waiting();
      break;
    case kRead:
      read_serial_ = 0;
      if (answer != nullptr) on_read(answer);
      break;
    case kUnblock: {
      unblocking_ = false;
      const IntegerReply unblocked = parse_integer(answer);
      if (unblocked.status == ReplyStatus::ok && unblocked.value == 1) ++unblocks_;
      if (unblocked.status == ReplyStatus::ok && unblocked.value == 0 && read_serial_ == serial_of(tag) &&
          ++unblock_tries_ < kMaxUnblockTries) {
        cut_read_short();
      }
      break;
    }
    default:
      break;
  }
  // A locate refused while broker.max_pending requests waited goes now that
  // one of them was answered, whichever it was; otherwise only another
  // follow or a reconnect would send it, and the topic's subscribers would
  // wait for their place until then.
  if (kind_of(tag) != kLocate) {
    const std::size_t before = locating_;
    locate_waiting();
    if (locating_ > before) cut_read_short();
  }
  maybe_read();
}

void StreamReader::on_located(std::size_t index, std::uint32_t serial, const redisReply* reply) {
  Followed* slot = topics_.at(index, serial);
  if (slot == nullptr) return;  // unfollowed since
  if (reply == nullptr) {       // the connection went; located again when it is back
    slot->phase = Followed::Phase::to_locate;
    return;
  }
  const NewestReply newest = parse_newest(reply);
  // Redis loading or busy says nothing of this key: refusing it would tell
  // its subscribers their stream is refused while Redis is only slow.
  // Every topic is located again once the link is back, after the back-off.
  if (newest.status == ReplyStatus::redis_error && redis_unavailable(newest.error)) {
    slot->phase = Followed::Phase::to_locate;
    link_.reset(newest.error);
    return;
  }
  if (newest.status == ReplyStatus::redis_error) {
    relocated_for_type_ = false;  // a key at fault was found: the next refusal is another's
    topic_scratch_ = *slot->topic;
    unfollow(topic_scratch_);
    sink_.on_refused(topic_scratch_, newest.error);
    return;
  }
  if (newest.status != ReplyStatus::ok) {
    slot->phase = Followed::Phase::to_locate;
    link_.reset("XREVRANGE answer not of the expected shape");
    return;
  }
  slot->phase = Followed::Phase::reading;
  topic_scratch_ = *slot->topic;  // the sink may unfollow it
  if (!slot->has_position) {
    slot->has_position = true;
    slot->position = newest.exists ? newest.id : StreamId{};
    sink_.on_started(topic_scratch_, slot->position);
    return;
  }
  const Recheck checked = recheck(slot->position, newest.exists, newest.id);
  slot->position = checked.position;
  if (checked.reset != nullptr) {
    sink_.on_reset(topic_scratch_, checked.reset);
  } else {
    sink_.on_continued(topic_scratch_, newest.exists ? newest.id : StreamId{});
  }
}

void StreamReader::on_read(const redisReply* reply) {
  ++reads_;
  const ReplyLimits limits{read_streams_, limits_.read_count, 16, limits_.max_data};
  const EntriesReply read = parse_read(reply, limits_.prefix, limits, entries_);
  // A key that is no longer a stream fails the whole read (Redis answers
  // it with one WRONGTYPE error): every topic is located again on the same
  // connection, which refuses that key alone while the others read on, and
  // the loop never looks cut off from Redis. Another error, a confused
  // answer, or a second refusal with no key found at fault: reconnect,
  // after the back-off, and check every topic there.
  if (read.status == ReplyStatus::redis_error && read.error.starts_with("WRONGTYPE") && !relocated_for_type_) {
    // With no topic of that read still read (unfollowed while it waited in
    // Redis), nothing is located and the next read simply goes without it.
    relocated_for_type_ = locate_every_read_topic();
    return;
  }
  if (read.status != ReplyStatus::ok) {
    link_.reset(read.status == ReplyStatus::redis_error ? read.error : to_string(read.status));
    return;
  }
  relocated_for_type_ = false;
  count_ = std::min(count_ * 2, std::max<std::size_t>(limits_.read_count, 1));
  for (const TopicEntry& item : entries_) deliver(item);
}

// The topic's name points into the reply, which outlives the sink's calls;
// the slot is found again after each call, which may unfollow it.
void StreamReader::deliver(const TopicEntry& item) {
  Followed* slot = topics_.find(item.topic);
  if (slot == nullptr || slot->phase != Followed::Phase::reading) return;
  const Step step = step_after(slot->position, item.entry.id);
  if (step.stale) return;
  const std::uint32_t serial = slot->serial;
  slot->position = item.entry.id;
  const auto still_followed = [&] {
    const Followed* now = topics_.find(item.topic);
    return now != nullptr && now->serial == serial;
  };
  if (step.reset != nullptr) sink_.on_reset(item.topic, step.reset);
  if (step.gap && still_followed()) sink_.on_gap(item.topic, step.gap_first, step.gap_last);
  // An entry this node cannot use is gone past: its id is a hole, told to
  // the subscribers with the next event as any other.
  if (item.entry.unusable != nullptr) {
    ++unusable_;
    return;
  }
  if (!still_followed() || sink_.on_event(item.topic, item.entry) == Take::accepted) return;
  // Held: read again from just before this entry (ids have no holes, so
  // that is seq - 1), after what was told about resets and gaps.
  if (still_followed()) {
    Followed* held = topics_.find(item.topic);
    held->phase = Followed::Phase::held;
    held->position = {item.entry.id.epoch, item.entry.id.seq - 1};
  }
}

bool StreamReader::locate_every_read_topic() {
  bool any = false;
  for (std::size_t i = 0; i < topics_.slot_count(); ++i) {
    Followed& slot = topics_[i];
    if (slot.topic == nullptr || slot.phase != Followed::Phase::reading) continue;
    slot.phase = Followed::Phase::to_locate;
    any = true;
  }
  locate_waiting();
  return any;
}

// One read at a time, and none while topics are being located: the read
// that follows includes them.
void StreamReader::maybe_read() {
  if (read_serial_ != 0 || locating_ > 0 || link_.state() != LinkState::up) return;
  cursors_.clear();
  for (std::size_t i = 0; i < topics_.slot_count(); ++i) {
    const Followed& slot = topics_[i];
    if (slot.topic != nullptr && slot.phase == Followed::Phase::reading) {
      cursors_.push_back({*slot.topic, slot.position});
    }
  }
  if (cursors_.empty()) return;
  const auto block = std::max(limits_.block, std::chrono::milliseconds(1));  // BLOCK 0 would wait forever
  write_read(command_, limits_.prefix, cursors_, count_, static_cast<std::uint64_t>(block.count()));
  const std::uint32_t serial = next_read_serial_++;
  if (next_read_serial_ == 0) next_read_serial_ = 1;
  if (link_.submit(command_, *this, tag_of(kRead, 0, serial), block) != Submit::accepted) return;
  read_serial_ = serial;
  read_streams_ = cursors_.size();
  unblock_tries_ = 0;
}

void StreamReader::cut_read_short() {
  if (read_serial_ == 0 || unblocking_ || unblocker_ == nullptr || client_id_ < 0) return;
  write_client_unblock(command_, client_id_);
  if (unblocker_->submit(command_, *this, tag_of(kUnblock, 0, read_serial_)) == Submit::accepted) unblocking_ = true;
}

}  // namespace sluice::broker
