// Fuzzes the broker's reading of Redis's answers the way a connection
// drives it: the input (after its first two bytes) is fed to hiredis's
// reply reader, with the broker's bounded reply builders, in two chunks,
// and every whole reply it yields goes through each of the broker's
// parsers. Byte 0 picks the limits (streams, entries per stream, fields,
// data bytes, and a small or large budget per answer), small ones so that
// the limit paths are reached with short inputs; byte 1 picks the split
// point.
//
// Invariants, abort() on violation: no answer costs more than its budget
// (an array header announcing a billion elements is refused, not
// allocated); an `ok` answer respects the limits; a read's entries belong
// to topics named after the prefix and, per topic, come in increasing id
// order; ids print and parse back to themselves; an error answer carries
// Redis's text and no entries; a refused answer leaves no entries behind.
#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "broker/replies.hpp"
#include "broker/reply_budget.hpp"

namespace {

using namespace sluice::broker;

constexpr std::string_view kPrefix = "sluice:";

void check(bool ok) {
  if (!ok) std::abort();
}

void check_id(StreamId id) {
  char text[kMaxStreamIdText];
  check(parse_stream_id(std::string_view(text, format_stream_id(id, text))) == id);
  char event[kMaxEventIdText];
  check(parse_event_id(std::string_view(event, format_event_id(id, event))) == id);
}

void check_entry(const StreamEntry& e, const ReplyLimits& limits) {
  check_id(e.id);
  check(e.data.size() <= limits.max_data);
}

void parse_all(const redisReply* reply, const ReplyLimits& limits) {
  std::vector<StreamEntry> range;
  const EntriesReply r = parse_range(reply, limits, range);
  check(r.status == ReplyStatus::ok || range.empty());
  check(range.size() <= limits.max_entries);
  for (std::size_t i = 0; i < range.size(); ++i) {
    check_entry(range[i], limits);
    check(i == 0 || range[i - 1].id < range[i].id);
  }

  std::vector<TopicEntry> read;
  const EntriesReply x = parse_read(reply, kPrefix, limits, read);
  check(x.status == ReplyStatus::ok || read.empty());
  check(x.status != ReplyStatus::redis_error || reply->type == REDIS_REPLY_ERROR);
  check(read.size() <= limits.max_streams * limits.max_entries);
  for (std::size_t i = 0; i < read.size(); ++i) {
    check_entry(read[i].entry, limits);
    const bool same_topic = i > 0 && read[i - 1].topic.data() == read[i].topic.data();
    check(!same_topic || read[i - 1].entry.id < read[i].entry.id);
  }

  const IdReply id = parse_published(reply);
  if (id.status == ReplyStatus::ok) check_id(id.id);
  check(id.status != ReplyStatus::redis_error || id.error.size() == reply->len);
  const NewestReply newest = parse_newest(reply);
  if (newest.status == ReplyStatus::ok && newest.exists) check_id(newest.id);
  const ShaReply sha = parse_sha(reply);
  check(sha.status != ReplyStatus::ok || sha.sha.size() == 40);
  (void)parse_integer(reply);
  (void)is_pong(reply);
}

// Every whole reply the reader holds, each freed after its parse.
bool drain(redisReader* reader, ReplyBudget& budget, const ReplyLimits& limits) {
  for (;;) {
    void* reply = nullptr;
    if (redisReaderGetReply(reader, &reply) != REDIS_OK) return false;  // a protocol error ends the connection
    check(budget.used <= budget.max_bytes);
    if (input_over_budget(reader, budget)) return false;  // the connection would be closed
    if (reply == nullptr) return true;
    parse_all(static_cast<const redisReply*>(reply), limits);
    freeReplyObject(reply);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t pick = data[0];
  const ReplyLimits limits{1u + (pick & 3u), 1u + ((pick >> 2) & 3u), 1u + ((pick >> 4) & 3u),
                           (pick & 0x80u) ? std::size_t{8} : std::size_t{1} << 20};
  const char* input = reinterpret_cast<const char*>(data + 2);
  const std::size_t n = size - 2;
  const std::size_t split = n == 0 ? 0 : data[1] % (n + 1);
  ReplyBudget budget{(pick & 0x40u) ? std::size_t{512} : std::size_t{64} << 20};
  redisReader* reader = redisReaderCreate();
  if (reader == nullptr) return 0;
  bound_replies(reader, budget);
  // Two separate feeds: the reader must keep its place between them.
  if (redisReaderFeed(reader, input, split) == REDIS_OK && drain(reader, budget, limits)) {
    if (redisReaderFeed(reader, input + split, n - split) == REDIS_OK) (void)drain(reader, budget, limits);
  }
  redisReaderFree(reader);
  return 0;
}
