// Both readers share one loop, read_members(): every member of the message
// is read by json::ObjectReader; a member the protocol knows (a row of a
// Field table) is checked for its type and that it comes once, and kept;
// any other is checked as JSON and dropped. The message's own rules (which
// members an op needs) apply only once the whole text has been read.
#include "proto/ws_json.hpp"

#include <array>
#include <charconv>
#include <cstring>

#include "proto/base64.hpp"
#include "proto/json_reader.hpp"

namespace sluice::proto::wsjson {

// The reader's way into Req's storage: only text it has checked gets there.
class ReqSetter {
 public:
  static void set(Req& req, std::string_view text) {
    std::memcpy(req.text_, text.data(), text.size());
    req.size_ = static_cast<std::uint8_t>(text.size());
  }
};

namespace {

enum class Type : std::uint8_t { string, req, boolean, count };

struct Field {
  std::string_view name;
  Type type;
  const char* duplicate;   // the reason when it appears twice
  const char* wrong_type;  // the reason when its value has another type
};

// A known member's value: a string decoded, else its text as written.
struct Found {
  bool present = false;
  std::string_view text;
};

// Spells out Req::kMaxStringBytes and Req::kMaxNumberChars.
constexpr const char* kBadReq =
    "\"req\" must be a string of up to 64 bytes, a number of up to 32 characters, true, false or null";

// A member whose value is a string; both reasons name it.
#define SLUICE_STRING_FIELD(name) \
  Field { #name, Type::string, "\"" #name "\" appears twice", "\"" #name "\" must be a string" }

// Request members: indices into kRequestTable.
namespace request_member {
enum : std::size_t { op, topic, data, event, key, since, policy, token, req, count };
}  // namespace request_member
constexpr Field kRequestTable[request_member::count] = {
    SLUICE_STRING_FIELD(op),    SLUICE_STRING_FIELD(topic), SLUICE_STRING_FIELD(data),
    SLUICE_STRING_FIELD(event), SLUICE_STRING_FIELD(key),   SLUICE_STRING_FIELD(since),
    SLUICE_STRING_FIELD(policy), SLUICE_STRING_FIELD(token), Field{"req", Type::req, "\"req\" appears twice", kBadReq},
};

// Server message members: indices into a ServerTable, whose first row is
// the kind, named by the Style.
namespace server_member {
enum : std::size_t {
  kind, topic, id, event, data, data_b64, req, ok, error, last_id, first_id, dropped, policy, reason, count
};
}  // namespace server_member
using ServerTable = std::array<Field, server_member::count>;
constexpr ServerTable server_table(Field kind) {
  return {kind,
          SLUICE_STRING_FIELD(topic),
          SLUICE_STRING_FIELD(id),
          SLUICE_STRING_FIELD(event),
          SLUICE_STRING_FIELD(data),
          SLUICE_STRING_FIELD(data_b64),
          Field{"req", Type::req, "\"req\" appears twice", kBadReq},
          Field{"ok", Type::boolean, "\"ok\" appears twice", "\"ok\" must be true or false"},
          SLUICE_STRING_FIELD(error),
          SLUICE_STRING_FIELD(last_id),
          SLUICE_STRING_FIELD(first_id),
          Field{"dropped", Type::count, "\"dropped\" appears twice", "\"dropped\" must be a whole number"},
          SLUICE_STRING_FIELD(policy),
          SLUICE_STRING_FIELD(reason)};
}
constexpr ServerTable kOpTable = server_table(SLUICE_STRING_FIELD(op));
constexpr ServerTable kSluiceTable = server_table(SLUICE_STRING_FIELD(sluice));
#undef SLUICE_STRING_FIELD

ReadResult error(Error e, const char* reason) { return {e, reason}; }

Error from_reader(json::ReadError e) {
  switch (e) {
    case json::ReadError::none: return Error::none;
    case json::ReadError::not_object: return Error::not_object;
    case json::ReadError::syntax: return Error::not_json;
    case json::ReadError::too_deep: return Error::too_deep;
    case json::ReadError::string_too_long: return Error::string_too_long;
    case json::ReadError::number_too_long: return Error::number_too_long;
    case json::ReadError::too_many_members: return Error::too_many_members;
    case json::ReadError::no_room: return Error::no_room;
  }
  return Error::not_json;
}

json::ReadLimits reader_limits(const Limits& limits) {
  return {limits.max_depth, limits.max_string_bytes, limits.max_number_chars, limits.max_members};
}

// The short scalars `req` may be; anything else is refused before it is
// read any further, so a deep or long `req` costs nothing more.
bool read_req(json::ObjectReader& reader, Req& req) {
  if (reader.value_is_container()) return false;
  json::Value v;
  if (!reader.read_value(v, false)) return false;
  const bool fits = v.kind == json::ValueKind::string   ? v.source.size() <= Req::kMaxText
                    : v.kind == json::ValueKind::number ? v.source.size() <= Req::kMaxNumberChars
                                                        : true;
  if (fits) ReqSetter::set(req, v.source);
  return fits;
}

bool has_type(const json::Value& v, Type type) {
  switch (type) {
    case Type::string: return v.kind == json::ValueKind::string;
    case Type::boolean: return v.kind == json::ValueKind::boolean;
    case Type::count: return v.kind == json::ValueKind::number && v.source.find_first_of(".eE-") == v.source.npos;
    case Type::req: return true;
  }
  return false;
}

struct Members {
  std::span<const Field> fields;
  std::span<Found> found;
  Req& req;
  std::size_t scratch_used = 0;
};

ReadResult read_member(json::ObjectReader& reader, std::string_view name, Members& m) {
  std::size_t i = 0;
  while (i < m.fields.size() && m.fields[i].name != name) ++i;
  if (i == m.fields.size()) return {};  // not ours: the next member skips it
  const Field& field = m.fields[i];
  if (m.found[i].present) {
    if (field.type == Type::req) m.req = Req{};  // which one would the ack name? neither
    return error(Error::duplicate, field.duplicate);
  }
  m.found[i].present = true;
  if (field.type == Type::req) {
    if (read_req(reader, m.req)) return {};
    return reader.failed() ? ReadResult{} : error(Error::bad_req, kBadReq);
  }
  json::Value v;
  if (!reader.read_value(v, field.type == Type::string)) return {};
  if (!has_type(v, field.type)) return error(Error::wrong_type, field.wrong_type);
  m.found[i].text = field.type == Type::string ? v.text : v.source;
  return {};
}

ReadResult read_members(std::string_view text, const Limits& limits, std::span<char> scratch, Members& m) {
  if (text.size() > limits.max_message_bytes) return error(Error::too_large, "a message longer than allowed");
  json::ObjectReader reader(text, reader_limits(limits), scratch);
  std::string_view name;
  if (reader.open()) {
    while (reader.next_member(name)) {
      if (const ReadResult r = read_member(reader, name, m); !r.ok()) return r;
    }
    (void)reader.finish();
  }
  m.scratch_used = reader.scratch_used();
  return reader.failed() ? error(from_reader(reader.error()), reader.reason()) : ReadResult{};
}

ReadResult check_request(const Found (&found)[request_member::count], Request& out) {
  if (!found[request_member::op].present) return error(Error::missing, "a request needs \"op\"");
  const std::string_view op = found[request_member::op].text;
  if (op == "subscribe") {
    out.op = Op::subscribe;
  } else if (op == "unsubscribe") {
    out.op = Op::unsubscribe;
  } else if (op == "publish") {
    out.op = Op::publish;
  } else if (op == "refresh") {
    out.op = Op::refresh;
  } else {
    return error(Error::unknown_op, "unknown op");
  }
  // An empty token is no token: a refresh that carries none has nothing
  // to be judged by.
  if (out.op == Op::refresh) {
    const bool token = found[request_member::token].present && !found[request_member::token].text.empty();
    return token ? ReadResult{} : error(Error::missing, "a refresh needs \"token\"");
  }
  if (!found[request_member::topic].present) return error(Error::missing, "a request needs \"topic\"");
  if (out.op == Op::publish && !found[request_member::data].present) {
    return error(Error::missing, "a publish needs \"data\"");
  }
  return {};
}

ServerOp server_op(std::string_view name) {
  if (name == "event") return ServerOp::event;
  if (name == "ack") return ServerOp::ack;
  if (name == "dropped") return ServerOp::dropped;
  if (name == "reset") return ServerOp::reset;
  return ServerOp::other;
}

// The bytes go to free scratch, or over the text itself when it was
// decoded into scratch already: base64 writes behind where it reads.
ReadResult decode_base64(std::string_view encoded, std::span<char> scratch, std::size_t used, ServerMessage& out) {
  const bool in_scratch = encoded.data() >= scratch.data() && encoded.data() < scratch.data() + scratch.size();
  char* to = in_scratch ? scratch.data() + (encoded.data() - scratch.data()) : scratch.data() + used;
  const std::size_t room = in_scratch ? encoded.size() : scratch.size() - used;
  const Base64Decoded d = base64_decode(encoded, to, room);
  if (d.status == Base64Status::no_room) return error(Error::no_room, "decoded strings do not fit the reader's buffer");
  if (d.status != Base64Status::ok) return error(Error::bad_base64, "\"data_b64\" is not base64");
  out.data = std::string_view(to, d.size);
  out.binary = true;
  return {};
}

// What each kind needs: its kind member, an event one of data and
// data_b64, an ack its ok; a dropped count that fits 64 bits.
ReadResult check_server_message(const Found (&found)[server_member::count], Style style, ServerMessage& out) {
  if (style != Style::bare) {
    if (!found[server_member::kind].present) {
      return error(Error::missing, style == Style::raw_topic ? "a notice needs \"sluice\"" : "a message needs \"op\"");
    }
    out.op = server_op(found[server_member::kind].text);
  }
  const bool text = found[server_member::data].present;
  const bool b64 = found[server_member::data_b64].present;
  if (out.op == ServerOp::event && text && b64) {
    return error(Error::duplicate, "an event has both \"data\" and \"data_b64\"");
  }
  if (out.op == ServerOp::event && !text && !b64) {
    return error(Error::missing, "an event needs \"data\" or \"data_b64\"");
  }
  if (out.op == ServerOp::ack && !found[server_member::ok].present) {
    return error(Error::missing, "an ack needs \"ok\"");
  }
  const std::string_view n = found[server_member::dropped].text;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), out.dropped);
  if (!n.empty() && (ec != std::errc() || end != n.data() + n.size())) {
    return error(Error::wrong_type, "\"dropped\" must be a whole number");
  }
  return {};
}

}  // namespace

Req::Req(std::uint64_t number) {
  const auto [end, ec] = std::to_chars(text_, text_ + kMaxText, number);
  size_ = static_cast<std::uint8_t>(end - text_);
}

bool Req::to_u64(std::uint64_t& number) const {
  if (size_ == 0) return false;
  const auto [end, ec] = std::from_chars(text_, text_ + size_, number);
  return ec == std::errc() && end == text_ + size_;
}

std::string_view op_name(Op op) {
  switch (op) {
    case Op::subscribe: return "subscribe";
    case Op::unsubscribe: return "unsubscribe";
    case Op::publish: return "publish";
    case Op::refresh: return "refresh";
  }
  return "subscribe";
}

ReadResult read_request(std::string_view text, const Limits& limits, std::span<char> scratch, Request& out) {
  out = Request{};
  Found found[request_member::count];
  Members m{kRequestTable, found, out.req};
  if (const ReadResult r = read_members(text, limits, scratch, m); !r.ok()) return r;
  if (const ReadResult r = check_request(found, out); !r.ok()) return r;
  out.topic = found[request_member::topic].text;
  out.data = found[request_member::data].text;
  out.event = found[request_member::event].text;
  out.key = found[request_member::key].text;
  out.since = found[request_member::since].text;
  out.policy = found[request_member::policy].text;
  out.token = found[request_member::token].text;
  return {};
}

ReadResult read_server_message(std::string_view text, Style style, const Limits& limits, std::span<char> scratch,
                               ServerMessage& out) {
  out = ServerMessage{};
  Found found[server_member::count];
  const std::span<const Field> table = style == Style::raw_topic ? kSluiceTable : kOpTable;
  // A bare notice has no kind member: its "op", if any, is not ours.
  const std::size_t first = style == Style::bare ? 1 : 0;
  Members m{table.subspan(first), std::span<Found>(found).subspan(first), out.req};
  if (const ReadResult r = read_members(text, limits, scratch, m); !r.ok()) return r;
  if (const ReadResult r = check_server_message(found, style, out); !r.ok()) return r;
  out.topic = found[server_member::topic].text;
  out.id = found[server_member::id].text;
  out.event = found[server_member::event].text;
  out.data = found[server_member::data].text;
  out.ok = found[server_member::ok].text == "true";
  out.error = found[server_member::error].text;
  out.last_id = found[server_member::last_id].text;
  out.first_id = found[server_member::first_id].text;
  out.policy = found[server_member::policy].text;
  out.reason = found[server_member::reason].text;
  if (out.op != ServerOp::event || !found[server_member::data_b64].present) return {};
  return decode_base64(found[server_member::data_b64].text, scratch, m.scratch_used, out);
}

}  // namespace sluice::proto::wsjson
