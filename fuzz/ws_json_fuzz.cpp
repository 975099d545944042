// Fuzzes the /ws JSON codec (proto/ws_json.hpp). Byte 0 picks the reader
// (bits 0-1: a request, or a server message in the /ws, /ws/{topic} or bare
// style), tight limits (bit 2) so that every limit is reached with short
// inputs, and a scratch buffer of half the text (bit 3) so that running out
// of it is reached too. The rest is the message.
//
// Invariants, abort() on violation:
// - an answer is ok with no reason, or an error with a one-line reason;
// - every view the reader hands out lies within the text or the scratch;
// - the verdict agrees with nlohmann::json, an independent reader: a text
//   read as ok, or refused only by the protocol's rules after it was read
//   whole, is JSON; a text refused as not JSON is not; and each string the
//   codec decoded equals what nlohmann decodes for that member;
// - what a writer writes from an ok message reads back to the same values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "proto/ws_json.hpp"
#include "proto/ws_json_writer.hpp"
#include "buf/string_sink.hpp"

namespace {

using namespace sluice::proto::wsjson;

void check(bool ok) {
  if (!ok) std::abort();
}

bool within(std::string_view part, std::string_view whole) {
  if (part.empty()) return true;
  const auto p = reinterpret_cast<std::uintptr_t>(part.data());
  const auto w = reinterpret_cast<std::uintptr_t>(whole.data());
  return p >= w && p + part.size() <= w + whole.size();
}

struct Buffers {
  std::string_view text;
  std::string_view scratch;
  bool holds(std::string_view v) const { return within(v, text) || within(v, scratch); }
};

void check_answer(const ReadResult& r) {
  const std::string_view reason = r.reason;
  check(r.ok() == reason.empty());
  check(reason.find('\n') == std::string_view::npos);
}

// Errors found only after the whole text was read as JSON.
bool read_whole(Error e) {
  return e == Error::none || e == Error::missing || e == Error::unknown_op || e == Error::bad_base64;
}

enum class Verdict : std::uint8_t { json, not_json, out_of_range };

// nlohmann's verdict, without building a document. It refuses a number
// that overflows a double, which RFC 8259 leaves to each reader (the codec
// keeps numbers as text and does not), so such a text is left out.
class Acceptor final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    out_of_range = std::string_view(e.what()).find("number overflow") != std::string_view::npos;
    return false;
  }
  bool out_of_range = false;
};

Verdict nlohmann_verdict(std::string_view text) {
  Acceptor acceptor;
  if (nlohmann::json::sax_parse(text, &acceptor)) return Verdict::json;
  return acceptor.out_of_range ? Verdict::out_of_range : Verdict::not_json;
}

// Whether the codec's answer agrees with nlohmann's; false when nlohmann
// cannot judge the text (a number out of range).
bool check_against_nlohmann(std::string_view text, Error e) {
  const Verdict v = nlohmann_verdict(text);
  if (v == Verdict::out_of_range) return false;
  if (read_whole(e)) check(v == Verdict::json);
  // nlohmann takes a NUL byte for the end of the text, so it accepts what
  // follows one unread; JSON has no place for a raw NUL anyway.
  if (e == Error::not_json && text.find('\0') == std::string_view::npos) check(v == Verdict::not_json);
  return true;
}

// A member the codec decoded, compared with nlohmann's value.
void check_string(const nlohmann::json& object, const char* name, std::string_view ours) {
  const auto it = object.find(name);
  if (it == object.end()) return check(ours.empty());
  check(it->is_string() && it->get_ref<const std::string&>() == ours);
}

void check_req(const nlohmann::json& object, const Req& req) {
  const auto it = object.find("req");
  check((it != object.end()) == req.present());
  if (req.present()) check(nlohmann::json::parse(req.text(), nullptr, false) == *it);
}

std::string written(const auto& write) {
  std::string out;
  sluice::buf::StringSink sink(out);
  check(write(sink));
  return out;
}

void round_trip(const Request& r) {
  const std::string text = written([&](sluice::buf::Sink& s) { return write_request(s, r); });
  std::vector<char> scratch(text.size());
  Request back;
  check(read_request(text, {}, scratch, back).ok());
  check(back.op == r.op && back.topic == r.topic && back.token == r.token && back.req == r.req);
  if (r.op == Op::subscribe) check(back.since == r.since && back.policy == r.policy);
  if (r.op == Op::publish) check(back.data == r.data && back.event == r.event && back.key == r.key);
}

void fuzz_request(std::string_view text, const Limits& limits, std::span<char> scratch) {
  Request r;
  const ReadResult result = read_request(text, limits, scratch, r);
  check_answer(result);
  const bool judged = check_against_nlohmann(text, result.error);
  check(r.req.text().size() <= Req::kMaxText);
  if (result.error == Error::bad_req) check(!r.req.present());
  if (!result.ok()) return;
  const Buffers b{text, {scratch.data(), scratch.size()}};
  for (const std::string_view v : {r.topic, r.data, r.event, r.key, r.since, r.policy, r.token}) check(b.holds(v));
  round_trip(r);
  if (!judged) return;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  check(j.is_object());
  check(j.at("op").get<std::string>() == op_name(r.op));
  check_string(j, "topic", r.topic);
  check_string(j, "data", r.data);
  check_string(j, "event", r.event);
  check_string(j, "key", r.key);
  check_string(j, "since", r.since);
  check_string(j, "policy", r.policy);
  check_string(j, "token", r.token);
  check_req(j, r.req);
}

ServerMessage read_written(const std::string& text, Style style, std::vector<char>& scratch) {
  scratch.assign(text.size(), '\0');
  ServerMessage back;
  check(read_server_message(text, style, {}, scratch, back).ok());
  return back;
}

void round_trip(const ServerMessage& m, Style style) {
  std::vector<char> scratch;
  if (m.op == ServerOp::event) {
    const Event e{m.topic, m.id, m.event, m.data, m.binary};
    const std::string text = written([&](sluice::buf::Sink& s) { return write_event(s, e); });
    const ServerMessage b = read_written(text, Style::json_protocol, scratch);
    check(b.op == m.op && b.topic == m.topic && b.id == m.id && b.event == m.event && b.data == m.data &&
          b.binary == m.binary);
  } else if (m.op == ServerOp::ack) {
    const Ack a{m.req, m.ok, m.id, m.last_id, m.error};
    const std::string text = written([&](sluice::buf::Sink& s) { return write_ack(s, a); });
    const ServerMessage b = read_written(text, Style::json_protocol, scratch);
    check(b.op == m.op && b.ok == m.ok && b.req.text() == (m.req.present() ? m.req.text() : "null"));
    check(m.ok ? b.id == m.id && b.last_id == m.last_id : b.error == m.error);
  } else if (m.op == ServerOp::dropped) {
    const Dropped d{m.topic, m.dropped, m.first_id, m.last_id, m.policy};
    const std::string text = written([&](sluice::buf::Sink& s) { return write_dropped(s, style, d); });
    const ServerMessage b = read_written(text, style, scratch);
    check(b.op == m.op && b.topic == m.topic && b.dropped == m.dropped && b.first_id == m.first_id &&
          b.last_id == m.last_id && b.policy == m.policy);
  } else if (m.op == ServerOp::reset) {
    const Reset r{m.topic, m.reason, m.last_id};
    const std::string text = written([&](sluice::buf::Sink& s) { return write_reset(s, style, r); });
    const ServerMessage b = read_written(text, style, scratch);
    check(b.op == m.op && b.topic == m.topic && b.reason == m.reason && b.last_id == m.last_id);
  }
}

void fuzz_server_message(std::string_view text, Style style, const Limits& limits, std::span<char> scratch) {
  ServerMessage m;
  const ReadResult result = read_server_message(text, style, limits, scratch, m);
  check_answer(result);
  const bool judged = check_against_nlohmann(text, result.error);
  if (!result.ok()) return;
  const Buffers b{text, {scratch.data(), scratch.size()}};
  for (const std::string_view v :
       {m.topic, m.id, m.event, m.data, m.error, m.last_id, m.first_id, m.policy, m.reason}) {
    check(b.holds(v));
  }
  round_trip(m, style);
  if (!judged) return;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  check(j.is_object());
  for (const auto& [name, value] : {std::pair{"topic", m.topic}, {"id", m.id}, {"event", m.event}, {"error", m.error},
                                    {"last_id", m.last_id}, {"first_id", m.first_id}, {"policy", m.policy},
                                    {"reason", m.reason}}) {
    check_string(j, name, value);
  }
  if (m.op == ServerOp::event && !m.binary) check_string(j, "data", m.data);
  if (j.contains("ok")) check(j.at("ok").get<bool>() == m.ok);
  if (j.contains("dropped")) check(j.at("dropped").get<std::uint64_t>() == m.dropped);
  check_req(j, m.req);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  Limits limits;
  if ((mode & 0x04) != 0) limits = {.max_message_bytes = 512, .max_depth = 4, .max_string_bytes = 24,
                                    .max_number_chars = 8, .max_members = 6};
  std::vector<char> scratch((mode & 0x08) != 0 ? text.size() / 2 : text.size());
  switch (mode & 0x03) {
    case 0: fuzz_request(text, limits, scratch); break;
    case 1: fuzz_server_message(text, Style::json_protocol, limits, scratch); break;
    case 2: fuzz_server_message(text, Style::raw_topic, limits, scratch); break;
    case 3: fuzz_server_message(text, Style::bare, limits, scratch); break;
  }
  return 0;
}
