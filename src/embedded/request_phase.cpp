// The request phase: the head arrives, is parsed, and the connection
// becomes an SSE or a WebSocket subscriber, or is answered with an error
// and closed.
//
// One parser serves the whole server. The link keeps every unconsumed
// byte of the head in its input buffer, so each time more arrives the
// shared parser, reset, parses the head again from its first byte: a head
// is at most the input buffer (a few hundred bytes), parsing it again
// costs less than a parser's state and header table kept per connection,
// and a head that does not fit the buffer is answered 431. The request's
// views point into the link's input, so it is consumed only once the
// answer is queued.
#include <charconv>

#include "buf/frame.hpp"
#include "embedded/push_server.hpp"
#include "proto/topic_name.hpp"
#include "proto/url.hpp"
#include "proto/ws_handshake.hpp"

namespace sluice::embedded {

namespace {

constexpr std::string_view kSse = "/sse";
constexpr std::string_view kWs = "/ws";
constexpr std::string_view kSsePrefix = "/sse/";
constexpr std::string_view kWsPrefix = "/ws/";
static_assert(kMaxTopicsPerConnection == 4, "kTooManyTopics names the limit");
constexpr std::string_view kTooManyTopics = "a connection follows at most 4 topics (kMaxTopicsPerConnection)";
constexpr std::string_view kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";

}  // namespace

void PushServer::on_request(PushConnection& c) {
  Link& link = *c.link_;
  parser_.reset();
  const proto::http1::ParseResult result = parser_.parse(link.input());
  switch (result.status) {
    case proto::http1::ParseStatus::need_more:
      if (link.input().size() >= link.input_capacity()) {
        refuse(c, 431, "the request head is larger than this device takes");
      } else if (link.input_closed()) {
        // The client may still read: it is told why nothing came. Blank
        // lines alone are no request.
        if (link.input().find_first_not_of("\r\n") == std::string_view::npos) {
          end(c);
        } else {
          refuse(c, 400, "the request ended (the client closed its side) before it was whole");
        }
      }
      return;
    case proto::http1::ParseStatus::error:
      refuse(c, result.http_status, result.reason);
      return;
    case proto::http1::ParseStatus::complete:
      route(c, parser_.request());
      if (!c.subscribed()) return;  // refused: end() has dropped the input already
      link.consume(result.consumed);
      if (c.phase_ == PushConnection::Phase::websocket && !link.input().empty()) on_websocket_input(c);
      link.flush();
      return;
  }
}

void PushServer::route(PushConnection& c, const proto::http1::Request& request) {
  const bool sse = request.path == kSse || request.path.starts_with(kSsePrefix);
  const bool ws = request.path == kWs || request.path.starts_with(kWsPrefix);
  if (!sse && !ws) {
    refuse(c, 404, "this device serves /sse/{topic} and /ws/{topic}");
    return;
  }
  if (request.method != proto::http1::Method::get) {
    refuse(c, 405, "subscriptions are GET requests");
    return;
  }
  const std::string_view prefix = sse ? kSsePrefix : kWsPrefix;
  const std::string_view path_topic = request.path.size() > prefix.size() ? request.path.substr(prefix.size()) : "";
  if (!take_topics(c, request, path_topic)) return;
  if (!(sse ? subscribe_sse(c) : subscribe_websocket(c, request))) return;
  resume(c, request);
}

// The path's topic and every `topic=` of the query, each once, into the
// connection's table. Topic names need no percent-encoding, so the raw
// query value is the name (an encoded one is refused as malformed).
bool PushServer::take_topics(PushConnection& c, const proto::http1::Request& request, std::string_view path_topic) {
  c.topic_count_ = 0;
  const auto take = [&](std::string_view topic) {
    if (!proto::valid_topic_name(topic, kMaxTopicBytes)) {
      refuse(c, 400, "a topic is 1 to 32 characters of A-Z a-z 0-9 _ . : -");
      return false;
    }
    if (c.find_topic(topic) >= 0) return true;
    if (c.topic_count_ == kMaxTopicsPerConnection) {
      refuse(c, 400, kTooManyTopics);
      return false;
    }
    topic.copy(c.topics_[c.topic_count_], topic.size());
    c.topic_sizes_[c.topic_count_] = static_cast<std::uint8_t>(topic.size());
    ++c.topic_count_;
    return true;
  };
  if (!path_topic.empty() && !take(path_topic)) return false;
  proto::url::QueryIterator it(request.query);
  std::string_view key;
  std::string_view value;
  while (it.next(key, value)) {
    if (key == "topic" && !take(value)) return false;
  }
  if (c.topic_count_ == 0) {
    refuse(c, 400, "name a topic: /sse/{topic}, /ws/{topic} or ?topic=");
    return false;
  }
  return true;
}

bool PushServer::subscribe_sse(PushConnection& c) {
  buf::FrameRef head = buf::make_frame(pool_, buf::Lane::control, kSseHead);
  if (!head || c.link_->out().push_control(std::move(head)) != conn::EnqueueStatus::ok) {
    end(c);  // not even the reserve has a block: nothing can be said
    return false;
  }
  c.phase_ = PushConnection::Phase::sse;
  return true;
}

// permessage-deflate is declined: its window would cost more RAM than a
// whole connection here.
bool PushServer::subscribe_websocket(PushConnection& c, const proto::http1::Request& request) {
  const proto::ws::HandshakeResult result = proto::ws::check_handshake(
      proto::ws::handshake_request(request), {.allowed_origins = config_.allowed_origins, .deflate_enabled = false});
  buf::FrameBuilder builder(pool_, buf::Lane::control);
  const bool written = proto::ws::write_handshake_response(result, builder);
  buf::FrameRef answer = builder.finish();
  if (!written || !answer || c.link_->out().push_control(std::move(answer)) != conn::EnqueueStatus::ok) {
    end(c);
    return false;
  }
  if (result.http_status != 101) {
    end(c);
    return false;
  }
  c.phase_ = PushConnection::Phase::websocket;
  return true;
}

void PushServer::refuse(PushConnection& c, int status, std::string_view reason) {
  char number[12];
  const auto digits = [&](std::size_t n) {
    return std::string_view(number, static_cast<std::size_t>(std::to_chars(number, number + sizeof number, n).ptr - number));
  };
  buf::FrameBuilder builder(pool_, buf::Lane::control);
  builder.append("HTTP/1.1 ");
  builder.append(digits(static_cast<std::size_t>(status)));
  builder.append(" ");
  builder.append(proto::http1::status_reason(status));
  builder.append("\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ");
  builder.append(digits(reason.size() + 1));
  builder.append("\r\n\r\n");
  builder.append(reason);
  builder.append("\n");
  buf::FrameRef answer = builder.finish();
  if (answer) (void)c.link_->out().push_control(std::move(answer));
  end(c);
}

}  // namespace sluice::embedded
