#include "ws_protocol.hpp"

namespace sluice::client::detail {

namespace {

constexpr std::size_t kMaxTopicName = 128;

void add_field(std::string& out, std::string_view name, std::string_view value) {
  out.push_back(',');
  append_json_string(out, name);
  out.push_back(':');
  append_json_string(out, value);
}

void add_optional(std::string& out, std::string_view name, std::string_view value) {
  if (!value.empty()) add_field(out, name, value);
}

void open_request(std::string& out, std::string_view op, std::string_view topic) {
  out.append("{\"op\":");
  append_json_string(out, op);
  add_field(out, "topic", topic);
}

void close_request(std::string& out, std::uint64_t req) {
  out.append(",\"req\":").append(std::to_string(req)).push_back('}');
}

ServerOp op_of(std::string_view op) {
  if (op == "event") return ServerOp::event;
  if (op == "dropped") return ServerOp::dropped;
  if (op == "reset") return ServerOp::reset;
  if (op == "ack") return ServerOp::ack;
  return ServerOp::other;
}

}  // namespace

void encode_subscribe(std::string_view topic, std::string_view since, std::string_view policy, std::uint64_t req,
                      std::string& out) {
  open_request(out, "subscribe", topic);
  add_optional(out, "since", since);
  add_optional(out, "policy", policy);
  close_request(out, req);
}

void encode_request(const WsRequest& request, std::string& out) {
  switch (request.op) {
    case WsRequest::Op::subscribe:
      return encode_subscribe(request.topic, request.since, request.policy, request.req, out);
    case WsRequest::Op::unsubscribe:
      open_request(out, "unsubscribe", request.topic);
      return close_request(out, request.req);
    case WsRequest::Op::publish:
      open_request(out, "publish", request.topic);
      add_field(out, "data", request.data);
      add_optional(out, "event", request.event);
      add_optional(out, "key", request.key);
      return close_request(out, request.req);
  }
}

bool decode_server_message(std::string_view text, JsonObject& json, ServerMessage& out) {
  std::string_view op;
  if (!json.parse(text) || !json.find("op", op)) return false;
  out = ServerMessage{};
  out.op = op_of(op);
  out.topic = json.get("topic");
  out.id = json.get("id");
  out.event = json.get("event");
  out.data = json.get("data");
  out.data_b64 = json.get("data_b64");
  out.error = json.get("error");
  out.ok = json.get("ok") == "true";
  if (!json.get_u64("req", out.req)) out.req = 0;
  if (!json.get_u64("dropped", out.dropped)) out.dropped = 0;
  return true;
}

bool is_valid_topic(std::string_view topic) {
  if (topic.empty() || topic.size() > kMaxTopicName) return false;
  for (const char c : topic) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '_' && c != '.' && c != ':' && c != '-') return false;
  }
  return true;
}

}  // namespace sluice::client::detail
