// Publishing walks the list of open connections once per event; a device
// serves tens of them, where a scan costs less than the table that would
// replace it. A connection may end while the list is walked (a cut-off, a
// link that closes at once), so every walk takes the next one first.
#include "embedded/push_server.hpp"

#include <charconv>

#include "buf/frame.hpp"
#include "delivery/frame_tag.hpp"
#include "delivery/policy.hpp"
#include "proto/sse.hpp"
#include "proto/ws_encoder.hpp"

namespace sluice::embedded {

namespace {

constexpr std::size_t kIdText = 21;  // the digits of a 64-bit id

std::string_view id_text(std::uint64_t id, char (&out)[kIdText]) {
  return {out, static_cast<std::size_t>(std::to_chars(out, out + kIdText, id).ptr - out)};
}

// The JSON fields of a drop notice of topic `i`, as the server's streams
// write them.
std::size_t drop_fields(const PushConnection& c, std::size_t i, Policy policy, char* out, std::size_t capacity) {
  const delivery::DropRecord& d = c.unreported_drops(i);
  char count[kIdText], first[kIdText], last[kIdText];
  const std::string_view parts[] = {"\"topic\":\"", c.topic(i), "\",\"dropped\":", id_text(d.count, count),
                                    ",\"first_id\":\"", id_text(d.first_id, first), "\",\"last_id\":\"",
                                    id_text(d.last_id, last), "\",\"policy\":\"", delivery::policy_name(policy),
                                    "\""};
  std::size_t n = 0;
  for (std::string_view part : parts) {
    if (n + part.size() > capacity) return 0;
    part.copy(out + n, part.size());
    n += part.size();
  }
  return n;
}

}  // namespace

PushServer::PushServer(buf::Pool& pool, const PushConfig& config)
    : pool_(pool), config_(config),
      parser_({.max_request_line = 256, .max_header_bytes = 2048, .max_headers = config.max_headers, .max_body = 0}),
      history_(config.history) {}

void PushServer::opened(PushConnection& c, Link& link) {
  c.link_ = &link;
  c.phase_ = PushConnection::Phase::request;
  c.topic_count_ = 0;
  c.request_polls_ = 0;
  c.idle_polls_ = 0;
  for (delivery::DropRecord& d : c.drops_) d = {};
  c.decoder_ = proto::ws::Decoder({.max_message_size = 0});
  c.next_ = head_;
  head_ = &c;
}

void PushServer::closed(PushConnection& c) {
  for (PushConnection** at = &head_; *at != nullptr; at = &(*at)->next_) {
    if (*at == &c) {
      *at = c.next_;
      break;
    }
  }
  c.next_ = nullptr;
  c.link_ = nullptr;
  c.phase_ = PushConnection::Phase::idle;
}

// The count stops at the limit rather than passing it: a one-byte count
// would wrap at 255 and a limit of 255 would never be reached.
void PushServer::poll(PushConnection& c) {
  if (c.phase_ == PushConnection::Phase::request) {
    if (c.request_polls_ >= config_.request_polls) {
      refuse(c, 408, "the request head did not arrive in time");
    } else {
      ++c.request_polls_;
    }
    return;
  }
  if (c.phase_ == PushConnection::Phase::closing) {
    if (config_.close_polls == 0) return;
    if (c.request_polls_ >= config_.close_polls) {
      c.link_->abort();
    } else {
      ++c.request_polls_;
    }
    return;
  }
  if (!c.subscribed() || config_.heartbeat_polls == 0 || ++c.idle_polls_ < config_.heartbeat_polls) return;
  heartbeat(c);
}

void PushServer::input(PushConnection& c) {
  switch (c.phase_) {
    case PushConnection::Phase::request:
      on_request(c);
      return;
    case PushConnection::Phase::websocket:
      on_websocket_input(c);
      return;
    case PushConnection::Phase::sse:
    case PushConnection::Phase::closing:
      // Nothing more is read from an SSE client: its bytes are dropped so
      // the window stays open, and its FIN ends the stream. Each consume
      // may move in more that the link held back (lwIP's refused data, its
      // FIN with it), and no new input() call comes for those.
      while (!c.link_->input().empty()) c.link_->consume(c.link_->input().size());
      if (c.link_->input_closed() && c.phase_ == PushConnection::Phase::sse) end(c);
      return;
    case PushConnection::Phase::idle:
      return;
  }
}

// Nothing waiting is the sign of an idle stream; a subscriber with bytes
// still queued is not helped by more.
void PushServer::heartbeat(PushConnection& c) {
  c.idle_polls_ = 0;
  Link& link = *c.link_;
  if (!link.out().empty()) return;
  buf::FrameBuilder builder(pool_, buf::Lane::data);
  if (c.phase_ == PushConnection::Phase::sse) {
    builder.append(":\n\n");
  } else {
    (void)proto::ws::encode_frame(proto::ws::Opcode::ping, true, false, std::span<const char>(), builder);
  }
  buf::FrameRef beat = builder.finish();
  if (!beat || link.out().push_data(std::move(beat), delivery::FrameTag::notice(0).label()) != conn::EnqueueStatus::ok) {
    return;
  }
  link.flush();
}

PublishReport PushServer::publish(std::string_view topic, std::string_view data) {
  PublishReport report{.id = ++last_id_};
  history_.record(report.id, topic, data);
  buf::FrameRef sse;
  buf::FrameRef ws;
  for (PushConnection* c = head_; c != nullptr;) {
    PushConnection* next = c->next_;
    const int i = c->subscribed() ? c->find_topic(topic) : -1;
    if (i >= 0) {
      ++report.subscribers;
      buf::FrameRef& frame = c->phase_ == PushConnection::Phase::sse ? sse : ws;
      if (!frame) frame = encode(c->phase_, data, report.id);
      deliver(*c, static_cast<std::size_t>(i), frame, report.id, report);
    }
    c = next;
  }
  return report;
}

void PushServer::flush() {
  for (PushConnection* c = head_; c != nullptr;) {
    PushConnection* next = c->next_;
    if (c->subscribed()) (void)tell_drops(*c);
    c->link_->flush();
    c = next;
  }
}

std::size_t PushServer::connections() const {
  std::size_t n = 0;
  for (const PushConnection* c = head_; c != nullptr; c = c->next_) ++n;
  return n;
}

std::size_t PushServer::subscribers(std::string_view topic) const {
  std::size_t n = 0;
  for (const PushConnection* c = head_; c != nullptr; c = c->next_) n += c->subscribed() && c->find_topic(topic) >= 0;
  return n;
}

// An event the pool had no block for is lost to every subscriber, and
// each is told, as for any other drop.
void PushServer::deliver(PushConnection& c, std::size_t topic, const buf::FrameRef& frame, std::uint64_t id,
                         PublishReport& report) {
  if (!frame) {
    c.drops_[topic].add(id);
    ++report.dropped;
    return;
  }
  (void)tell_drops(c);
  std::uint64_t lost_before = 0;
  for (const delivery::DropRecord& d : c.drops_) lost_before += d.count;
  const delivery::Verdict verdict =
      delivery::enqueue_with_policy(c.link_->out(), config_.policy, frame,
                                    delivery::FrameTag::event(static_cast<std::uint32_t>(topic), id, 0), c.drops_);
  std::uint64_t lost_after = 0;
  for (const delivery::DropRecord& d : c.drops_) lost_after += d.count;
  report.dropped += static_cast<std::size_t>(lost_after - lost_before);
  switch (verdict) {
    case delivery::Verdict::queued:
      ++report.queued;
      c.idle_polls_ = 0;
      return;
    case delivery::Verdict::dropped:
      return;
    case delivery::Verdict::cut_off:
      ++report.cut_off;
      cut_off(c);
      return;
  }
}

// Queues a notice of the events `c` lost on each topic, ahead of its next
// event. A full queue or pool keeps the record for the next try.
bool PushServer::tell_drops(PushConnection& c) {
  for (std::size_t i = 0; i < c.topic_count_; ++i) {
    if (c.drops_[i].empty()) continue;
    char fields[192];  // the longest: a 32-byte topic, three 20-digit numbers, the longest policy name
    const std::size_t n = drop_fields(c, i, config_.policy, fields, sizeof fields);
    if (!push_notice(c, "dropped", std::string_view(fields, n))) return false;
    c.drops_[i] = {};
  }
  return true;
}

// A notice in the data lane, in order with the events: an SSE event named
// sluice-{kind} whose data is {fields}, or a WebSocket text message
// {"sluice":"{kind}",fields}.
bool PushServer::push_notice(PushConnection& c, std::string_view kind, std::string_view fields) {
  buf::FrameBuilder builder(pool_, buf::Lane::data);
  if (c.phase_ == PushConnection::Phase::sse) {
    builder.append("event: sluice-");
    builder.append(kind);
    builder.append("\ndata: {");
    builder.append(fields);
    builder.append("}\n\n");
  } else {
    char text[256];
    std::size_t n = 0;
    for (std::string_view part : {std::string_view("{\"sluice\":\""), kind, std::string_view("\","), fields,
                                  std::string_view("}")}) {
      if (n + part.size() > sizeof text) return false;
      part.copy(text + n, part.size());
      n += part.size();
    }
    (void)proto::ws::encode_frame(proto::ws::Opcode::text, true, false, std::span<const char>(text, n), builder);
  }
  buf::FrameRef notice = builder.finish();
  return notice && c.link_->out().push_data(std::move(notice), delivery::FrameTag::notice(0).label()) ==
                       conn::EnqueueStatus::ok;
}

// The backlog is dropped: the subscriber resumes from the last id it got,
// and waiting for a reader that fell behind to take it would only hold
// its blocks and its slot longer.
void PushServer::cut_off(PushConnection& c) {
  (void)c.link_->out().drop_pending_data();
  if (c.phase_ == PushConnection::Phase::websocket) {
    end_websocket(c, proto::ws::CloseCode::policy_violation, "slow consumer, resume from the last id");
    return;
  }
  buf::FrameRef hint = buf::make_frame(pool_, buf::Lane::control, ": slow consumer, resume from the last id\n\n");
  if (hint) (void)c.link_->out().push_control(std::move(hint));
  end(c);
}

// Unread input is dropped first: a stack that closes with bytes not yet
// consumed (lwIP) resets the connection, and the answer queued for the
// peer would be lost with it.
void PushServer::end(PushConnection& c) {
  c.phase_ = PushConnection::Phase::closing;
  c.request_polls_ = 0;
  Link& link = *c.link_;
  while (!link.input().empty()) link.consume(link.input().size());
  link.close();  // may report closed() before it returns
}

buf::FrameRef PushServer::encode(PushConnection::Phase form, std::string_view data, std::uint64_t id) {
  if (form == PushConnection::Phase::websocket) {
    return proto::ws::make_message_frame(pool_, buf::Lane::data, proto::ws::Opcode::text, data);
  }
  char text[kIdText];
  return proto::sse::make_event_frame(pool_, buf::Lane::data, {.id = id_text(id, text), .data = data});
}

}  // namespace sluice::embedded
