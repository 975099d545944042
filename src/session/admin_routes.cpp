// The routes of the admin listener (admin.listen), and nothing else there:
//   GET  /admin/topics?limit=N&after=NAME   topics in name order, a page at a time
//   GET  /admin/topics/{topic}              one topic and its newest kept events
//   GET  /admin/connections?limit=N&after=ID  connections in id order, a page at a time
//   POST /admin/connections/{id}/close      close one connection
//   POST /admin/drain                       stop accepting, end every connection, exit
// Each request is asked of the authorizer, when one is installed, as a
// subscription (GET) or a publish (POST) to the server topic "$admin",
// which only a grant naming it exactly covers: reading the node's state and
// acting on it are separate grants. A request that carries an Origin is
// refused: it comes from a web page, and a page the operator happens to
// have open must not be able to drain the node through the operator's
// browser (a plain cross-site POST needs no preflight).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "session/http_request.hpp"
#include "session/request_target.hpp"
#include "session/services.hpp"
#include "session/session.hpp"

namespace sluice::session {

namespace {

using proto::http1::Method;
using proto::http1::Request;

// The name the authorizer is asked to grant.
constexpr std::string_view kAdminTopic = "$admin";
constexpr std::string_view kTopicsPath = "/admin/topics";
constexpr std::string_view kTopicPrefix = "/admin/topics/";
constexpr std::string_view kConnectionsPath = "/admin/connections";
constexpr std::string_view kConnectionsPrefix = "/admin/connections/";
constexpr std::string_view kCloseSuffix = "/close";
constexpr std::string_view kDrainPath = "/admin/drain";
// Topics, or connections, in a page when the request names no limit.
constexpr std::size_t kDefaultTopicLimit = 100;
constexpr std::size_t kDefaultConnectionLimit = 100;
// How long a listing waits for every loop to answer: a loop busy for this
// long is a node in trouble, and the operator is told so rather than held.
constexpr auto kListingWait = std::chrono::seconds(5);
constexpr std::string_view kJson = "application/json";

// `text` as a whole decimal number in [min, max], or nullopt.
std::optional<std::uint64_t> parse_number(std::string_view text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

void HttpRequestPhase::route_admin(const Request& request) {
  if (!request.header("Origin").empty()) {
    keep_alive_ = false;
    return respond({.status = 403, .body = "the admin API answers no web page (the request has an Origin)\n"});
  }
  AdminDesk* const desk = services_.ops().admin();
  const std::string_view path = request.path;
  if (desk == nullptr || !path.starts_with("/admin/")) return respond({.status = 404, .body = "no such resource\n"});
  // Reading asks for "$admin" as a subscription, acting as a publish.
  const bool reads = request.method == Method::get || request.method == Method::head;
  const server::Action action = reads ? server::Action::subscribe : server::Action::publish;
  if (const AuthOutcome outcome = session_.peer().authorize(action, kAdminTopic, request); !outcome.allowed()) {
    return deny(outcome);
  }
  if (path == kTopicsPath || path.starts_with(kTopicPrefix)) {
    if (request.method != Method::get) return method_not_allowed("GET");
    return path == kTopicsPath ? admin_topics(request, *desk) : admin_topic(path.substr(kTopicPrefix.size()), *desk);
  }
  if (path == kConnectionsPath) {
    if (request.method != Method::get) return method_not_allowed("GET");
    return admin_connections(request, *desk);
  }
  const bool close = path.starts_with(kConnectionsPrefix) && path.ends_with(kCloseSuffix);
  if (!close && path != kDrainPath) return respond({.status = 404, .body = "no such resource\n"});
  if (request.method != Method::post) return method_not_allowed("POST");
  if (path == kDrainPath) {
    const std::int64_t timeout = services_.config().ops.admin_drain_timeout_ms;
    const std::string body = "{\"draining\":true,\"timeout_ms\":" + std::to_string(timeout) + "}\n";
    // The reply is queued before the loops stop, and every connection's
    // queue is flushed before it closes: this one goes out first.
    respond({.status = 202, .content_type = kJson, .body = body});
    return desk->drain(timeout);
  }
  const std::string_view id_text =
      path.substr(kConnectionsPrefix.size(), path.size() - kConnectionsPrefix.size() - kCloseSuffix.size());
  const std::optional<std::uint64_t> id = parse_number(id_text, 1, UINT64_MAX);
  if (!id || !desk->close_connection(*id)) {
    return respond({.status = 404, .body = "no such connection is open (ids: GET /admin/connections, the access log's conn=)\n"});
  }
  respond({.status = 202, .content_type = kJson, .body = "{\"close_requested\":" + std::to_string(*id) + "}\n"});
}

void HttpRequestPhase::admin_topics(const Request& request, const AdminDesk& desk) {
  const auto most = static_cast<std::uint64_t>(services_.config().ops.admin_max_topics);
  std::size_t limit = std::min<std::size_t>(kDefaultTopicLimit, most);
  if (const std::string_view text = query_value(request.query, "limit"); !text.empty()) {
    const std::optional<std::uint64_t> asked = parse_number(text, 1, most);
    if (!asked) {
      return respond({.status = 400,
                      .body = "limit must be an integer between 1 and " + std::to_string(most) + " (admin.max_topics)\n"});
    }
    limit = static_cast<std::size_t>(*asked);
  }
  char after_buf[1024];
  const std::string_view raw_after = query_value(request.query, "after");
  const std::string_view after = decode_into(raw_after, after_buf, sizeof after_buf);
  if (after.empty() && !raw_after.empty()) return respond({.status = 400, .body = "after: a malformed topic name\n"});
  // Allocated here, once per request, never on a loop's event path.
  std::string body;
  desk.write_topics(body, limit, after);
  respond({.status = 200, .content_type = kJson, .body = body});
}

void HttpRequestPhase::admin_connections(const Request& request, AdminDesk& desk) {
  const auto most = static_cast<std::uint64_t>(services_.config().ops.admin_max_connections);
  std::size_t limit = std::min<std::size_t>(kDefaultConnectionLimit, most);
  if (const std::string_view text = query_value(request.query, "limit"); !text.empty()) {
    const std::optional<std::uint64_t> asked = parse_number(text, 1, most);
    if (!asked) {
      return respond({.status = 400, .body = "limit must be an integer between 1 and " + std::to_string(most) +
                                             " (admin.max_connections)\n"});
    }
    limit = static_cast<std::size_t>(*asked);
  }
  std::uint64_t after = 0;
  if (const std::string_view text = query_value(request.query, "after"); !text.empty()) {
    const std::optional<std::uint64_t> cursor = parse_number(text, 0, UINT64_MAX);
    if (!cursor) return respond({.status = 400, .body = "after: a connection id (the previous page's next)\n"});
    after = *cursor;
  }
  listing_ticket_ = desk.ask_connections(limit, after);
  if (listing_ticket_ == 0) {
    return respond({.status = 503, .body = "another connection listing is under way\n",
                    .extra_headers = "Retry-After: 1\r\n"});
  }
  // Answered from tick(), once every loop has added its connections; the
  // requests pipelined behind this one wait, so replies stay in order.
  listing_since_ = session_.loop().now();
}

void HttpRequestPhase::finish_listing(io::Loop::Clock::time_point now) {
  AdminDesk* const desk = services_.ops().admin();
  std::string body;
  if (desk != nullptr && desk->collect_connections(listing_ticket_, body)) {
    listing_ticket_ = 0;
    respond({.status = 200, .content_type = kJson, .body = body});
  } else if (desk == nullptr || now - listing_since_ > kListingWait) {
    if (desk != nullptr) desk->abandon_connections(listing_ticket_);
    listing_ticket_ = 0;
    respond({.status = 503, .body = "a loop did not list its connections in time\n",
             .extra_headers = "Retry-After: 1\r\n"});
  } else {
    return;
  }
  if (!session_.ended()) session_.resume_input();
}

void HttpRequestPhase::admin_topic(std::string_view raw_topic, const AdminDesk& desk) {
  char topic_buf[1024];
  const std::string_view topic = decode_into(raw_topic, topic_buf, sizeof topic_buf);
  std::string body;
  const auto shown = static_cast<std::size_t>(services_.config().ops.admin_history_events);
  if (topic.empty() || !desk.write_topic(body, topic, shown)) {
    return respond({.status = 404, .body = "no such topic\n"});
  }
  respond({.status = 200, .content_type = kJson, .body = body});
}

}  // namespace sluice::session
