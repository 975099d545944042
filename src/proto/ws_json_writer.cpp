#include "proto/ws_json_writer.hpp"

#include <charconv>

#include "proto/base64.hpp"
#include "proto/json_string.hpp"
#include "proto/utf8.hpp"

namespace sluice::proto::wsjson {

namespace {

// ,"name":"value" — `name` is one of the protocol's, which need no escaping.
bool member(buf::Sink& out, std::string_view name, std::string_view value) {
  const bool ok = out.append(",\"") && out.append(name) && out.append("\":");
  return json::write_string(out, value) && ok;
}

bool optional_member(buf::Sink& out, std::string_view name, std::string_view value) {
  return value.empty() || member(out, name, value);
}

// {"op":"KIND" / {"sluice":"KIND" / {  — what follows starts with a comma
// except in the bare style, where the first member follows directly.
bool open_notice(buf::Sink& out, Style style, std::string_view kind) {
  switch (style) {
    case Style::json_protocol: return out.append("{\"op\":\"") && out.append(kind) && out.append("\"");
    case Style::raw_topic: return out.append("{\"sluice\":\"") && out.append(kind) && out.append("\"");
    case Style::bare: return out.append("{");
  }
  return false;
}

// The notice's first member, "topic", with or without the comma before it.
bool topic_member(buf::Sink& out, Style style, std::string_view topic) {
  const bool ok = out.append(style == Style::bare ? "\"topic\":" : ",\"topic\":");
  return json::write_string(out, topic) && ok;
}

}  // namespace

bool needs_base64(std::string_view data) { return !ws::is_valid_utf8(data); }

bool write_event(buf::Sink& out, const Event& event) {
  bool ok = out.append("{\"op\":\"event\"") && member(out, "topic", event.topic) && member(out, "id", event.id) &&
            optional_member(out, "event", event.event);
  if (event.binary) {
    ok = out.append(",\"data_b64\":\"") && base64_encode(out, event.data) && out.append("\"") && ok;
  } else {
    ok = member(out, "data", event.data) && ok;
  }
  return out.append("}") && ok;
}

bool write_ack(buf::Sink& out, const Ack& ack) {
  bool ok = out.append("{\"op\":\"ack\",\"req\":") && out.append(ack.req.present() ? ack.req.text() : "null");
  if (ack.ok) {
    ok = out.append(",\"ok\":true") && optional_member(out, "id", ack.id) &&
         optional_member(out, "last_id", ack.last_id) && ok;
  } else {
    ok = out.append(",\"ok\":false") && member(out, "error", ack.error) && ok;
  }
  return out.append("}") && ok;
}

bool write_dropped(buf::Sink& out, Style style, const Dropped& notice) {
  char count[24];
  const auto [end, ec] = std::to_chars(count, count + sizeof count, notice.count);
  const bool ok = open_notice(out, style, "dropped") && topic_member(out, style, notice.topic) &&
                  out.append(",\"dropped\":") && out.append(count, static_cast<std::size_t>(end - count)) &&
                  member(out, "first_id", notice.first_id) && member(out, "last_id", notice.last_id) &&
                  member(out, "policy", notice.policy);
  return out.append("}") && ok;
}

bool write_reset(buf::Sink& out, Style style, const Reset& notice) {
  const bool ok = open_notice(out, style, "reset") && topic_member(out, style, notice.topic) &&
                  member(out, "reason", notice.reason) && member(out, "last_id", notice.last_id);
  return out.append("}") && ok;
}

bool write_request(buf::Sink& out, const Request& request) {
  bool ok = out.append("{\"op\":\"") && out.append(op_name(request.op)) && out.append("\"") &&
            (request.op == Op::refresh ? optional_member(out, "topic", request.topic)
                                       : member(out, "topic", request.topic));
  switch (request.op) {
    case Op::subscribe:
      ok = optional_member(out, "since", request.since) && optional_member(out, "policy", request.policy) && ok;
      break;
    case Op::unsubscribe:
    case Op::refresh:
      break;
    case Op::publish:
      ok = member(out, "data", request.data) && optional_member(out, "event", request.event) &&
           optional_member(out, "key", request.key) && ok;
      break;
  }
  ok = optional_member(out, "token", request.token) && ok;
  if (request.req.present()) ok = out.append(",\"req\":") && out.append(request.req.text()) && ok;
  return out.append("}") && ok;
}

}  // namespace sluice::proto::wsjson
