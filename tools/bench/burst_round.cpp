#include "burst_round.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "clock.hpp"
#include "net.hpp"
#include "publisher.hpp"
#include "reader_context.hpp"
#include "replay_stream.hpp"
#include "sse_subscriber.hpp"
#include "stamp.hpp"
#include "ws_subscriber.hpp"

namespace sluice::bench {

namespace {

std::uint64_t deadline_of(const BurstSetup& setup) {
  return now_ns() + static_cast<std::uint64_t>(setup.timeout * 1e9);
}

std::string fresh_topic(std::string_view kind, std::size_t index) {
  return std::string(kind) + "-" + std::to_string(index) + "-" + std::to_string(now_ns() % 1000000);
}

double ms_between(std::uint64_t from, std::uint64_t to) {
  return static_cast<double>(to > from ? to - from : 0) / 1e6;
}

Round failed(std::string why) { return {.error = std::move(why)}; }

// The SEQ of "EPOCH:SEQ" (or of a bare sequence), 0 when there is none.
std::uint64_t seq_of(std::string_view id) {
  if (const auto colon = id.rfind(':'); colon != std::string_view::npos) id.remove_prefix(colon + 1);
  std::uint64_t seq = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), seq);
  return ec == std::errc() && end == id.data() + id.size() ? seq : 0;
}

std::string with_settings_hint(std::string why, const BurstSetup& setup) {
  return why + "; sluiced holds and replays this burst with " + replay_settings(setup);
}

// Why the replayed stream fell short of K events, in the terms of the
// server's limits where the stream tells which one.
std::string shortfall(const ReplayStream& stream, const BurstSetup& setup) {
  if (!stream.notice().empty()) return with_settings_hint("the server refused the replay: " + stream.notice(), setup);
  if (stream.ended()) {
    return with_settings_hint("the server ended the stream after " + std::to_string(stream.events()) + " of " +
                                  std::to_string(setup.events) + " replayed events",
                              setup);
  }
  return stream.error() + " after " + std::to_string(stream.events()) + " of " + std::to_string(setup.events) +
         " replayed events";
}

// Never below sluiced's default, so that the line can be copied as it is.
void append_setting(std::string& out, const char* key, std::size_t needed, std::size_t server_default) {
  out += std::string(out.empty() ? "" : " ") + "--set " + key + "=" + std::to_string(std::max(needed, server_default));
}

// The live round with either protocol's session (both count events and
// stamp the first and last read).
template <class Stream>
Round run_live(const BurstSetup& setup, const ServerUnderTest& sut, ReaderContext& context, Stream& session,
               const std::string& topic) {
  const std::uint64_t deadline = deadline_of(setup);
  if (!session.start()) return failed("cannot connect");
  while (!session.streaming() && !session.done() && now_ns() < deadline) context.loop.run_once(10);
  if (!session.streaming()) return failed("no stream head: " + session.error());
  Publisher publisher({.server = sut.direct, .topic = topic, .size = setup.size, .pipeline = setup.events,
                       .window = setup.events, .max_events = setup.events});
  const std::uint64_t published_at = now_ns();
  publisher.start(deadline);
  // A refused publish (sluiced: 503 while a loop catches up on a history
  // shorter than the burst) never arrives, so it ends the wait.
  while (session.events() < setup.events && !session.done() && publisher.counters().refused.load() == 0 &&
         now_ns() < deadline) {
    context.loop.run_once(10);
  }
  publisher.stop();
  if (const std::uint64_t refused = publisher.counters().refused.load(); refused > 0) {
    return failed("the server refused " + std::to_string(refused) + " of " + std::to_string(setup.events) +
                  " publishes; a history of at least -k events holds a live burst");
  }
  if (session.events() < setup.events) {
    return failed(std::to_string(session.events()) + " of " + std::to_string(setup.events) + " events arrived" +
                  (session.error().empty() ? "" : ": " + session.error()));
  }
  Round round;
  round.complete = true;
  // A server that has the events before the publish (sol-server --mode
  // burst) may deliver the first ones with the stream head: first_ms is 0.
  const std::uint64_t first = session.first_event_ns();
  round.first_ms = ms_between(published_at, first);
  round.last_ms = ms_between(published_at, session.last_event_ns());
  round.drain_ms = ms_between(first, session.last_event_ns());
  // The first segment after the handshake carried the stream head (the
  // SSE response head, or the 101). A burst small enough to ride in that
  // same segment (a replay sent with its head) was all in one segment.
  const std::uint64_t segments = segments_in(session.fd()) - session.segments_at_request();
  if (segments > 0) {
    const std::uint64_t event_segments = segments > 1 ? segments - 1 : 1;
    round.events_per_segment = static_cast<double>(session.events()) / static_cast<double>(event_segments);
  }
  return round;
}

// What a replay round asks for: one event, whose id the client then
// gives, and the K events after it. Returns why not, empty on success.
std::string publish_history(const BurstSetup& setup, const ServerUnderTest& sut, const std::string& topic,
                            std::uint64_t deadline, std::string& first_id) {
  const PublishAnswer first = publish_one(sut.direct, topic, make_payload(setup.size, now_ns()), deadline);
  if (first.status / 100 != 2 || first.id.empty()) return "the first publish got no id: " + first.error;
  first_id = first.id;
  Publisher publisher({.server = sut.direct, .topic = topic, .size = setup.size, .pipeline = setup.events,
                       .window = setup.events, .max_events = setup.events});
  if (!publisher.run(deadline)) return "publishing: " + publisher.error();
  if (const std::uint64_t refused = publisher.counters().refused.load(); refused > 0) {
    return with_settings_hint("the server refused " + std::to_string(refused) + " of " + std::to_string(setup.events) +
                                  " publishes (its pool or history is full)",
                              setup);
  }
  if (publisher.counters().accepted.load() < setup.events) return "not every publish was answered in time";
  return {};
}

Round sse_replay(const BurstSetup& setup, const ServerUnderTest& sut, const std::string& topic,
                 const std::string& first_id, std::uint64_t deadline) {
  ReplayStream stream;
  if (!stream.open(sut.endpoint, topic, first_id) || !stream.read_head(deadline)) return failed(stream.error());
  if (!stream.read_events(setup.events, deadline)) return failed(shortfall(stream, setup));
  if (stream.first_seq() != seq_of(first_id) + 1 || stream.gaps() > 0) {
    return failed("the replay began at id " + std::to_string(stream.first_seq()) + " with " +
                  std::to_string(stream.gaps()) + " ids skipped, not right after " + first_id);
  }
  Round round;
  round.complete = true;
  round.first_ms = ms_between(stream.requested_ns(), stream.first_event_ns());
  round.last_ms = ms_between(stream.requested_ns(), stream.wanted_event_ns());
  round.drain_ms = ms_between(stream.first_event_ns(), stream.wanted_event_ns());
  // Counted from the request on: the head may share a segment with events.
  if (stream.segments() > 0) {
    round.events_per_segment = static_cast<double>(setup.events) / static_cast<double>(stream.segments());
  }
  return round;
}

// The upgrade to /ws/{topic} carries Last-Event-ID. Messages there carry no
// id, so the bench's own numbers tell where the replay began: the first
// event and the K after it are all publisher 0's, the first numbered 1 and
// the K numbered 1..K, so a replay that began one too early repeats a
// number and one that began late skips some.
Round ws_replay(const BurstSetup& setup, const ServerUnderTest& sut, const std::string& topic,
                const std::string& first_id, std::uint64_t deadline) {
  StreamCounters counters;
  ReaderContext context(counters);
  WsSubscriber session(context, {.server = sut.endpoint, .path = stream_path(Proto::ws, topic), .proto = Proto::ws,
                              .last_event_id = first_id});
  const std::uint64_t requested = now_ns();
  if (!session.start()) return failed("cannot connect");
  while (session.events() < setup.events && !session.done() && now_ns() < deadline) context.loop.run_once(10);
  if (session.events() < setup.events) {
    return failed(with_settings_hint(std::to_string(session.events()) + " of " + std::to_string(setup.events) +
                                         " replayed events arrived" +
                                         (session.error().empty() ? "" : ": " + session.error()),
                                     setup));
  }
  if (counters.gaps.load() > 0 || counters.order_errors.load() > 0 || session.last_seq(0) != setup.events) {
    return failed("the replay did not begin right after " + first_id + ": " + std::to_string(counters.gaps.load()) +
                  " skipped, " + std::to_string(counters.order_errors.load()) + " repeated");
  }
  Round round;
  round.complete = true;
  round.first_ms = ms_between(requested, session.first_event_ns());
  round.last_ms = ms_between(requested, session.last_event_ns());
  round.drain_ms = ms_between(session.first_event_ns(), session.last_event_ns());
  // Counted from the request on: the 101 may share a segment with events.
  if (const std::uint64_t segments = segments_in(session.fd()) - session.segments_at_request(); segments > 0) {
    round.events_per_segment = static_cast<double>(setup.events) / static_cast<double>(segments);
  }
  return round;
}

}  // namespace

std::string replay_settings(const BurstSetup& setup) {
  constexpr std::size_t kFieldBytes = 64;  // an SSE frame's id and field names around the data
  constexpr std::size_t kBlockSize = 4096;  // sluiced's default pool.block_size
  const std::size_t events = setup.events;
  const std::size_t kept = events + 1;      // the first event, whose id the client gives, is kept too
  const std::size_t frame = std::max(setup.size, kPayloadHeader) + kFieldBytes;
  // Each kept event holds its SSE frame and its replay payload, and every
  // round's topic keeps its history until the server stops: a pool short of
  // them all makes every topic's history give way in turn, this round's too.
  const std::size_t blocks = setup.rounds * 2 * kept * ((frame + kBlockSize - 1) / kBlockSize);
  std::string out;
  append_setting(out, "history.max_events", kept, 1000);
  append_setting(out, "history.max_bytes", 2 * kept * frame, std::size_t{1} << 20);
  append_setting(out, "send.budget_frames", events, 4096);
  append_setting(out, "send.budget_bytes", events * frame, std::size_t{1} << 20);
  append_setting(out, "pool.block_count", blocks + 16384, 16384);
  return out;
}

ReplaySupport probe_replay(const BurstSetup& setup, const ServerUnderTest& sut) {
  const std::uint64_t deadline = deadline_of(setup);
  const std::string topic = fresh_topic("probe", 0);
  const PublishAnswer first = publish_one(sut.direct, topic, make_payload(setup.size, now_ns(), 0, 1), deadline);
  if (first.status / 100 != 2) {
    return {false, first.status == 0 ? first.error : "a publish answered " + std::to_string(first.status)};
  }
  if (first.id.empty()) return {false, "the publish reply names no event id"};
  const std::string kept = make_payload(setup.size, now_ns(), 0, 2);
  if (publish_one(sut.direct, topic, kept, deadline).status / 100 != 2) return {false, "the second publish failed"};
  ReplayStream stream;
  if (!stream.open(sut.endpoint, topic, first.id) || !stream.read_head(deadline)) return {false, stream.error()};
  const std::string live = make_payload(setup.size, now_ns(), 0, 3);
  if (publish_one(sut.direct, topic, live, deadline).status / 100 != 2) return {false, "the third publish failed"};
  stream.read_events(1, deadline);
  if (!stream.notice().empty()) return {false, "the server sent a notice instead of the event: " + stream.notice()};
  if (stream.events() == 0) return {false, "no event arrived: " + stream.error()};
  if (stream.first_data() == kept) return {true, ""};
  if (stream.first_data() == live) return {false, "the stream began with the event published after it opened"};
  return {false, "the stream began with an event the bench did not publish"};
}

Round replay_round(const BurstSetup& setup, const ServerUnderTest& sut, std::size_t index) {
  const std::uint64_t deadline = deadline_of(setup);
  const std::string topic = fresh_topic("replay", index);
  std::string first_id;
  if (std::string why = publish_history(setup, sut, topic, deadline, first_id); !why.empty()) return failed(why);
  return setup.proto == Proto::ws ? ws_replay(setup, sut, topic, first_id, deadline)
                                  : sse_replay(setup, sut, topic, first_id, deadline);
}

Round live_round(const BurstSetup& setup, const ServerUnderTest& sut, std::size_t index) {
  StreamCounters counters;
  ReaderContext context(counters);
  const std::string topic = fresh_topic("burst", index);
  const SubscriberOptions options{.server = sut.endpoint, .path = stream_path(setup.proto, topic), .proto = setup.proto};
  if (setup.proto == Proto::ws) {
    WsSubscriber session(context, options);
    return run_live(setup, sut, context, session, topic);
  }
  SseSubscriber session(context, options);
  return run_live(setup, sut, context, session, topic);
}

}  // namespace sluice::bench
