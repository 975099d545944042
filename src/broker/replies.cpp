#include "broker/replies.hpp"

#include "broker/publish_script.hpp"

namespace sluice::broker {

namespace {

std::string_view text_of(const redisReply* r) { return std::string_view(r->str, r->len); }

bool is_error(const redisReply* r) { return r != nullptr && r->type == REDIS_REPLY_ERROR; }

bool is_string(const redisReply* r) { return r != nullptr && r->type == REDIS_REPLY_STRING; }

bool is_array(const redisReply* r) { return r != nullptr && r->type == REDIS_REPLY_ARRAY; }

// [id, [field, value, ...]]: the data field is required, the event and key
// fields may be missing (an empty value), fields of other names are passed
// over so that a later sluice may add some.
ReplyStatus parse_entry(const redisReply* r, const ReplyLimits& limits, StreamEntry& out) {
  if (!is_array(r) || r->elements != 2 || !is_string(r->element[0])) return ReplyStatus::malformed;
  const auto id = parse_stream_id(text_of(r->element[0]));
  const redisReply* fields = r->element[1];
  if (!id || !is_array(fields) || fields->elements % 2 != 0) return ReplyStatus::malformed;
  out = StreamEntry{*id, {}, {}, {}, nullptr};
  if (fields->elements / 2 > limits.max_fields) {
    out.unusable = "more fields than an entry may have";
    return ReplyStatus::ok;
  }
  bool has_data = false;
  for (std::size_t i = 0; i < fields->elements; i += 2) {
    const redisReply* name = fields->element[i];
    const redisReply* value = fields->element[i + 1];
    if (!is_string(name) || !is_string(value)) return ReplyStatus::malformed;
    const std::string_view field = text_of(name);
    if (field == kDataField) {
      out.data = text_of(value);
      has_data = true;
      if (value->len > limits.max_data) out.unusable = "data over this node's largest event";
    } else if (field == kEventField) {
      out.event = text_of(value);
    } else if (field == kKeyField) {
      out.key = text_of(value);
    }
  }
  if (!has_data) out.unusable = "no data field";
  if (out.unusable != nullptr) out.data = out.event = out.key = {};
  return ReplyStatus::ok;
}

// A stream's entries, each after the one before (and after `after`).
template <typename Push>
ReplyStatus parse_entries(const redisReply* r, const ReplyLimits& limits, Push push) {
  if (!is_array(r)) return ReplyStatus::malformed;
  if (r->elements > limits.max_entries) return ReplyStatus::over_limit;
  StreamId previous{};
  for (std::size_t i = 0; i < r->elements; ++i) {
    StreamEntry entry;
    if (const ReplyStatus s = parse_entry(r->element[i], limits, entry); s != ReplyStatus::ok) return s;
    if (i > 0 && !(previous < entry.id)) return ReplyStatus::malformed;
    previous = entry.id;
    push(entry);
  }
  return ReplyStatus::ok;
}

}  // namespace

const char* to_string(ReplyStatus status) {
  switch (status) {
    case ReplyStatus::ok:
      return "ok";
    case ReplyStatus::redis_error:
      return "Redis answered an error";
    case ReplyStatus::malformed:
      return "Redis's answer is not of the expected shape";
    case ReplyStatus::over_limit:
      return "Redis's answer is over a limit";
  }
  return "?";
}

bool redis_unavailable(std::string_view error) {
  const std::string_view code = error.substr(0, error.find(' '));
  return code == "LOADING" || code == "BUSY" || code == "MASTERDOWN" || code == "TRYAGAIN" || code == "CLUSTERDOWN";
}

IdReply parse_published(const redisReply* reply) {
  if (is_error(reply)) return {ReplyStatus::redis_error, {}, text_of(reply)};
  if (!is_string(reply)) return {};
  const auto id = parse_stream_id(text_of(reply));
  if (!id) return {};
  return {ReplyStatus::ok, *id, {}};
}

NewestReply parse_newest(const redisReply* reply) {
  if (is_error(reply)) return {ReplyStatus::redis_error, false, {}, text_of(reply)};
  if (!is_array(reply) || reply->elements > 1) return {};
  if (reply->elements == 0) return {ReplyStatus::ok, false, {}, {}};
  const redisReply* entry = reply->element[0];
  if (!is_array(entry) || entry->elements != 2 || !is_string(entry->element[0])) return {};
  const auto id = parse_stream_id(text_of(entry->element[0]));
  if (!id) return {};
  return {ReplyStatus::ok, true, *id, {}};
}

EntriesReply parse_range(const redisReply* reply, const ReplyLimits& limits, std::vector<StreamEntry>& out) {
  out.clear();
  if (is_error(reply)) return {ReplyStatus::redis_error, text_of(reply)};
  const ReplyStatus status = parse_entries(reply, limits, [&](const StreamEntry& e) { out.push_back(e); });
  if (status != ReplyStatus::ok) out.clear();
  return {status, {}};
}

EntriesReply parse_read(const redisReply* reply, std::string_view prefix, const ReplyLimits& limits,
                        std::vector<TopicEntry>& out) {
  out.clear();
  if (is_error(reply)) return {ReplyStatus::redis_error, text_of(reply)};
  if (reply != nullptr && reply->type == REDIS_REPLY_NIL) return {ReplyStatus::ok, {}};
  if (!is_array(reply)) return {};
  if (reply->elements > limits.max_streams) return {ReplyStatus::over_limit, {}};
  ReplyStatus status = ReplyStatus::ok;
  for (std::size_t s = 0; s < reply->elements && status == ReplyStatus::ok; ++s) {
    const redisReply* stream = reply->element[s];
    if (!is_array(stream) || stream->elements != 2 || !is_string(stream->element[0]) ||
        !text_of(stream->element[0]).starts_with(prefix)) {
      status = ReplyStatus::malformed;
      break;
    }
    const std::string_view topic = text_of(stream->element[0]).substr(prefix.size());
    status = parse_entries(stream->element[1], limits, [&](const StreamEntry& e) { out.push_back({topic, e}); });
  }
  if (status != ReplyStatus::ok) out.clear();
  return {status, {}};
}

IntegerReply parse_integer(const redisReply* reply) {
  if (is_error(reply)) return {ReplyStatus::redis_error, 0, text_of(reply)};
  if (reply == nullptr || reply->type != REDIS_REPLY_INTEGER) return {};
  return {ReplyStatus::ok, static_cast<std::int64_t>(reply->integer), {}};
}

ShaReply parse_sha(const redisReply* reply) {
  if (is_error(reply)) return {ReplyStatus::redis_error, {}, text_of(reply)};
  if (!is_string(reply) || reply->len != 40) return {};
  for (const char c : text_of(reply)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return {};
  }
  return {ReplyStatus::ok, text_of(reply), {}};
}

bool is_pong(const redisReply* reply) {
  return reply != nullptr && reply->type == REDIS_REPLY_STATUS && text_of(reply) == "PONG";
}

}  // namespace sluice::broker
