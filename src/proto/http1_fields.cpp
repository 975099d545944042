#include "http1_fields.hpp"

#include "http1_syntax.hpp"

namespace sluice::proto::http1::detail {
namespace {

FieldLine reject_line(const char* reason) {
  FieldLine line;
  line.http_status = 400;
  line.reason = reason;
  return line;
}

Framing reject_framing(int status, const char* reason) {
  Framing framing;
  framing.http_status = status;
  framing.reason = reason;
  return framing;
}

// What the header section says about framing, gathered in one pass.
struct Survey {
  std::size_t hosts = 0;
  std::size_t transfer_encodings = 0;
  std::string_view transfer_encoding;
  bool has_content_length = false;
  std::uint64_t content_length = 0;
  const char* content_length_error = nullptr;
  bool close = false;
  bool keep_alive = false;
  bool expect_continue = false;
};

void note_content_length(Survey& s, std::string_view value) {
  std::uint64_t n = 0;
  const NumberStatus status = parse_decimal(value, n);
  if (status != NumberStatus::ok) {
    s.content_length_error = status == NumberStatus::overflow ? "Content-Length overflows"
                                                              : "Content-Length not a decimal";
  } else if (s.has_content_length && n != s.content_length) {
    s.content_length_error = "conflicting Content-Length values";
  }
  s.has_content_length = true;
  s.content_length = n;
}

void note(Survey& s, const Header& h) {
  if (iequals(h.name, "host")) {
    ++s.hosts;
  } else if (iequals(h.name, "content-length")) {
    if (s.content_length_error == nullptr) note_content_length(s, h.value);
  } else if (iequals(h.name, "transfer-encoding")) {
    ++s.transfer_encodings;
    s.transfer_encoding = h.value;
  } else if (iequals(h.name, "connection")) {
    s.close = s.close || list_has_token(h.value, "close");
    s.keep_alive = s.keep_alive || list_has_token(h.value, "keep-alive");
  } else if (iequals(h.name, "expect")) {
    s.expect_continue = s.expect_continue || iequals(h.value, "100-continue");  // as Request::expects_continue()
  }
}

// Transfer-Encoding and Content-Length together, or Transfer-Encoding in
// HTTP/1.0, are how request smuggling starts (RFC 9112 6.1): refused.
Framing chunked_framing(const Survey& s, int version_minor) {
  if (s.has_content_length) return reject_framing(400, "both Content-Length and Transfer-Encoding");
  if (version_minor == 0) return reject_framing(400, "Transfer-Encoding in HTTP/1.0");
  if (s.transfer_encodings > 1) return reject_framing(400, "Transfer-Encoding given more than once");
  if (!iequals(s.transfer_encoding, "chunked")) {
    return reject_framing(501, "Transfer-Encoding other than chunked");
  }
  Framing framing;
  framing.chunked = true;
  return framing;
}

Framing body_framing(const Survey& s, int version_minor, const Limits& limits) {
  if (s.content_length_error != nullptr) return reject_framing(400, s.content_length_error);
  if (s.transfer_encodings > 0) return chunked_framing(s, version_minor);
  Framing framing;
  if (!s.has_content_length) return framing;
  if (s.content_length > limits.max_body) return reject_framing(413, kBodyOverMaxBody);
  framing.content_length = static_cast<std::size_t>(s.content_length);  // at most max_body
  return framing;
}

}  // namespace

FieldLine parse_field_line(std::string_view line) {
  if (is_ows(line.front())) return reject_line("obs-fold or whitespace before field name");
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return reject_line("field line without ':'");
  if (!is_token(line.substr(0, colon))) return reject_line("field name is not a token");
  for (std::size_t i = colon + 1; i < line.size(); ++i) {
    if (!is_field_char(line[i])) return reject_line("control character in field value");
  }
  const std::string_view value = trim_ows(line.substr(colon + 1));
  FieldLine out;
  out.name_length = colon;
  out.value_begin =
      value.empty() ? line.size() : static_cast<std::size_t>(value.data() - line.data());
  out.value_length = value.size();
  return out;
}

Framing decide_framing(std::span<const Header> headers, int version_minor, const Limits& limits) {
  Survey s;
  for (const Header& h : headers) note(s, h);
  if (version_minor == 1 && s.hosts == 0) return reject_framing(400, "HTTP/1.1 request without Host");
  if (s.hosts > 1) return reject_framing(400, "more than one Host");
  Framing framing = body_framing(s, version_minor, limits);
  framing.keep_alive = version_minor == 1 ? !s.close : (s.keep_alive && !s.close);
  // An HTTP/1.0 client cannot take an interim response: its expectation is
  // ignored.
  const bool body = framing.chunked || framing.content_length > 0;
  framing.expect_continue = version_minor == 1 && s.expect_continue && body;
  return framing;
}

}  // namespace sluice::proto::http1::detail
