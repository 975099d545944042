// Owns: what the HTTP/1.1 request phase and the HTTP/2 connection decide
// alike about a request: the Origin rule and the CORS origin it grants,
// the replies for a refusal (the authorizer's, the hub's, a malformed
// request), checking and making a publish (POST /pub/{topic}), and reading
// what an SSE stream asks for (GET /sse). Each answer is a Response, which
// each transport frames in its own way; nothing here writes to a
// connection.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "delivery/policy.hpp"
#include "sluice/config.hpp"
#include "hub/event_id.hpp"
#include "proto/http1.hpp"
#include "session/auth_gate.hpp"
#include "session/broker_publishes.hpp"
#include "session/hub_answers.hpp"
#include "session/origin_check.hpp"
#include "session/response.hpp"
#include "sluice/authorization.hpp"

namespace sluice::session {

class LoopServices;
class Peer;

// The routes both transports serve: GET /sse and /sse/{topic}, POST /pub/{topic}.
inline constexpr std::string_view kSsePrefix = "/sse";
// A path a GET opens an event stream on, over either protocol: /sse,
// /sse/{topic}, the dashboard's events.
[[nodiscard]] bool event_stream_path(std::string_view path);
inline constexpr std::string_view kPublishPrefix = "/pub/";

// The text a reply points into, kept by the caller until the reply is sent.
struct ReplyText {
  char body[1400];
  // Room for the longest challenge an authorizer may give (a cut header
  // would lose its CRLF and run into the body), or the CORS lines.
  char headers[sizeof "WWW-Authenticate: \r\n" + server::AuthDecision::kMaxChallenge + 1024];
  char topic[1024];
  char event[256];
  char key[hub::kMaxKeyBytes + 1];
  char last_id[hub::kMaxIdText * 2];
};

// 421 for a request whose Host (or :authority) is not one the server
// answers to (http.allowed_hosts, host_check.hpp); nothing when it may go on.
[[nodiscard]] std::optional<Response> host_refusal(const LoopServices& services, const proto::http1::Request& request);

[[nodiscard]] OriginRule origin_rule(LoopServices& services);
// Whether a request can publish or act: a POST, or a WebSocket (an
// HTTP/1.1 upgrade or an HTTP/2 extended CONNECT, `websocket`) on any route
// but a topic's /ws/{topic}, which is let in to read (and may publish only
// when its origin may write: origin_reads_only()); an application's own
// WebSocket routes act on what they are sent.
[[nodiscard]] bool request_writes(const LoopServices& services, const proto::http1::Request& request, bool websocket);
// The request comes from a page on another origin that may read but not
// write (ws.allowed_origins empty, no authorizer): a /ws/{topic} it opens
// follows its topic and is closed (1008) if it sends a message.
[[nodiscard]] bool origin_reads_only(LoopServices& services, const proto::http1::Request& request);
// 403 for a request from an origin the rule refuses, or for one that
// `writes` (publishes or acts) from an origin that may only read
// (origin_check.hpp); nothing when it may go on.
[[nodiscard]] std::optional<Response> origin_refusal(LoopServices& services, const proto::http1::Request& request,
                                                     bool writes);
// What a page on an allowed origin needs to read a stream or a publish's
// reply (origin_check.hpp): Access-Control-Allow-Origin's value, or empty.
[[nodiscard]] std::string_view cors_origin(LoopServices& services, const proto::http1::Request& request);

// The authorizer's refusal: its status, reason and Retry-After or
// WWW-Authenticate. keep_alive is false: over HTTP/1.1 a client refused
// once gets no second try on its connection.
[[nodiscard]] Response denial(const AuthOutcome& outcome, ReplyText& text);
// The hub's refusal, as an HTTP reply (with Retry-After when it has one).
[[nodiscard]] Response hub_refusal(const HubAnswer& answer, ReplyText& text);
// GET /healthz: 200, or, with a broker, 503 naming a Redis this loop cannot
// reach (publishes are refused and no topic is read: a load balancer
// should send clients elsewhere). `head`: no body.
[[nodiscard]] Response health_answer(LoopServices& services, bool head, ReplyText& text);
// "STATUS Reason" for a request that cannot be served, then ": " and
// `detail` when given; keep_alive false.
[[nodiscard]] Response malformed(int status, ReplyText& text, std::string_view detail = {});
// 413 for a request body over http.max_body, one line naming the key and
// the limit the request met (`max_body`, in bytes), over HTTP/1.1 and
// HTTP/2 alike.
[[nodiscard]] Response body_over_max_body(std::size_t max_body, ReplyText& text);
// 431 for an HTTP/2 request whose header list passed h2.max_header_list_bytes,
// or whose fields passed http.max_headers (`fields`), `limit` being its value.
[[nodiscard]] Response h2_headers_over_limit(bool fields, std::size_t limit, ReplyText& text);
// The answer to a request the parser refused at one of `limits` (413, 414,
// 431): one line naming the key and its value; nullopt for its other
// refusals.
[[nodiscard]] std::optional<Response> over_http_limit(const proto::http1::ParseResult& result,
                                                      const proto::http1::Limits& limits, ReplyText& text);
// 413 for a request that cannot be whole within the input buffer, one line
// naming receive.budget_bytes and its value (`budget`, in bytes).
[[nodiscard]] Response request_over_receive_budget(std::size_t budget, ReplyText& text);

// What a checked publish publishes to: views into a ReplyText.
struct PublishTarget {
  std::string_view topic;
  std::string_view event;  // ?event=
  std::string_view key;    // ?key=
};

// Decodes POST /pub/{topic}'s names and asks the authorizer. Returns the
// refusal, or nullopt with `target` set.
[[nodiscard]] std::optional<Response> check_publish(LoopServices& services, Peer& peer,
                                                    const proto::http1::Request& request,
                                                    std::string_view raw_topic, ReplyText& text,
                                                    PublishTarget& target);
// Publishes `body` to a checked target: the JSON reply ({"topic", "id",
// "subscribers"}), or the hub's refusal.
[[nodiscard]] Response publish_event(LoopServices& services, Peer& peer, const PublishTarget& target,
                                     std::string_view body, std::string_view allow_origin, ReplyText& text);
// A publish the broker has answered (a node with a broker publishes through
// Redis and answers when Redis has): on ok the same JSON reply, its id the
// stream's and its subscribers this node's; else the refusal's status and
// line, with Redis's own text after it.
[[nodiscard]] Response broker_publish_answer(LoopServices& services, broker::PublishStatus status,
                                             broker::StreamId id, std::string_view error, std::string_view topic,
                                             std::string_view allow_origin, ReplyText& text);

// What GET /sse asks for, once checked.
struct SseOpening {
  std::vector<std::string> topics;
  std::optional<Policy> requested;  // ?policy=
  std::string_view last_id;         // Last-Event-ID, or ?lastEventId=
};

// The id a stream resumes after: Last-Event-ID, else ?lastEventId=
// (decoded into `text`, or as sent when it does not decode: a malformed id
// is told so, not passed over as none); empty for none.
[[nodiscard]] std::string_view requested_last_id(const proto::http1::Request& request, ReplyText& text);
// The line refusing a ?policy= (or a /ws subscribe's policy) the server
// does not offer: what was asked, then the ones it does (policy.allow),
// written into `out` (cut to its size).
[[nodiscard]] std::string_view policy_not_offered(const server::PolicyConfig& policy, std::string_view asked,
                                                  std::span<char> out);
// A stream's ?policy= (SSE, /ws/{topic}): none (nullopt, `requested` left
// empty), one the server offers (into `requested`), or a 400 naming the
// ones it does.
[[nodiscard]] std::optional<Response> check_policy(const server::PolicyConfig& policy,
                                                   const proto::http1::Request& request, ReplyText& text,
                                                   std::optional<Policy>& requested);
// A 400 for a request that names more than one Last-Event-ID.
[[nodiscard]] std::optional<Response> check_one_last_id(const proto::http1::Request& request);

// Reads the topics (/sse/{topic} and ?topic=), the policy and the id to
// resume from, and asks the authorizer about every topic before anything
// is sent: a refusal is then a plain HTTP status, which EventSource
// reports and does not retry. Returns the refusal, or nullopt with
// `opening` set.
[[nodiscard]] std::optional<Response> check_sse(LoopServices& services, Peer& peer,
                                                const proto::http1::Request& request, std::string_view path_topic,
                                                ReplyText& text, SseOpening& opening);

}  // namespace sluice::session
