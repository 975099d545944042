// The request parser is one state machine over the connection's bytes:
// step() dispatches on the state, each on_<state>() consumes what it can and
// either moves to the next state or stops with need_more, complete or error.
// Lines are scanned once: scan_line() resumes at cur_.pos, so each byte is
// examined a bounded number of times however the input is split.
//
// Every decision depends only on the bytes up to the point where it is made,
// so a request gets the same answer whether it arrives whole or byte by byte.
#include <algorithm>

#include "http1_fields.hpp"
#include "http1_request_line.hpp"
#include "http1_syntax.hpp"
#include "proto/http1.hpp"

namespace sluice::proto::http1 {

using detail::LineScan;
using detail::LineStatus;

namespace {

// Extensions are ignored, but the line holding them must still be bounded.
constexpr std::size_t kMaxChunkSizeLine = 1024;

constexpr ParseResult kNeedMore{ParseStatus::need_more, 0, 0, "need more input"};

ParseResult error(int http_status, const char* reason) {
  return {ParseStatus::error, 0, http_status, reason};
}

// The answer for a line scan_line() found neither whole nor too long.
ParseResult unfinished(LineStatus status) {
  if (status == LineStatus::bare_lf) return error(400, "bare LF");
  if (status == LineStatus::bare_cr) return error(400, "bare CR");
  return kNeedMore;
}

// chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ): the extensions are
// ignored, so only their start and their characters are checked.
bool is_chunk_ext(std::string_view rest) {
  if (rest.empty()) return true;
  while (!rest.empty() && detail::is_ows(rest.front())) rest.remove_prefix(1);
  if (rest.empty() || rest.front() != ';') return false;
  return std::all_of(rest.begin(), rest.end(), detail::is_field_char);
}

}  // namespace

RequestParser::RequestParser(const Limits& limits) : limits_(limits), chunked_body_(limits.account) {
  fields_.reserve(limits.max_headers);
  headers_.reserve(limits.max_headers);
}

void RequestParser::reset() {
  cur_ = {};
  result_ = kNeedMore;
  fields_.clear();
  headers_.clear();
  chunked_body_.clear();
  chunked_body_.trim();
  request_ = {};
}

ParseResult RequestParser::parse(std::string_view input) {
  if (cur_.state != State::failed && input.size() < cur_.pos) {
    fail(400, "input shorter than on the previous call");
  }
  while (step(input) == Flow::next) {
  }
  return result_;
}

RequestParser::Flow RequestParser::step(std::string_view in) {
  switch (cur_.state) {
    case State::start:
      return on_start(in);
    case State::request_line:
      return on_request_line(in);
    case State::header_line:
      return on_field_line(in, false);
    case State::fixed_body:
      return on_fixed_body(in);
    case State::chunk_size:
      return on_chunk_size(in);
    case State::chunk_data:
      return on_chunk_data(in);
    case State::chunk_data_end:
      return on_chunk_data_end(in);
    case State::trailer_line:
      return on_field_line(in, true);
    case State::done:
      bind(in);
      return Flow::stop;
    case State::failed:
      return Flow::stop;
  }
  return Flow::stop;
}

// RFC 9112 2.2: a server SHOULD ignore at least one empty line before the
// request line (some clients send CRLF after a POST body). One is skipped; a
// second one is a malformed request line. A scan allowed no bytes tells the
// empty line (found) from the first byte of a request line (too_long).
RequestParser::Flow RequestParser::on_start(std::string_view in) {
  const LineScan scan = detail::scan_line(in, cur_.pos, cur_.pos, 0);
  if (scan.status == LineStatus::found) {
    skip_line(0);
  } else if (scan.status != LineStatus::too_long) {
    return stop_with(unfinished(scan.status));
  }
  cur_.request_begin = cur_.line_begin = cur_.pos;
  cur_.state = State::request_line;
  return Flow::next;
}

RequestParser::Flow RequestParser::on_request_line(std::string_view in) {
  const LineScan scan = detail::scan_line(in, cur_.line_begin, cur_.pos, limits_.max_request_line);
  if (scan.status == LineStatus::too_long) return fail(414, kLineOverMaxRequestLine);
  if (scan.status == LineStatus::need_more &&
      !detail::plausible_request_line_start(in.substr(cur_.line_begin, cur_.pos - cur_.line_begin))) {
    return fail(400, "method is not a token");
  }
  if (scan.status != LineStatus::found) return stop_with(unfinished(scan.status));
  const detail::RequestLine line =
      detail::parse_request_line(in.substr(cur_.line_begin, scan.length));
  if (line.http_status != 0) return fail(line.http_status, line.reason);
  cur_.method_length = line.method_length;
  cur_.target_begin = cur_.line_begin + line.target_begin;
  cur_.target_length = line.target_length;
  cur_.authority_begin = cur_.line_begin + line.authority_begin;
  cur_.authority_length = line.authority_length;
  request_.method = line.method;
  request_.version_minor = line.version_minor;
  return finish_line(scan.length, State::header_line);
}

// Header and trailer lines share the limits: a trailer is a header section
// that arrives late, and must not be a way around them.
RequestParser::Flow RequestParser::on_field_line(std::string_view in, bool trailer) {
  const std::size_t budget = limits_.max_header_bytes - cur_.header_bytes;
  const LineScan scan =
      detail::scan_line(in, cur_.line_begin, cur_.pos, budget > 2 ? budget - 2 : 0);
  if (scan.status == LineStatus::too_long) return fail(431, kHeadOverMaxHeaderBytes);
  if (scan.status != LineStatus::found) return stop_with(unfinished(scan.status));
  if (scan.length == 0) {
    skip_line(0);
    return trailer ? complete(in, cur_.pos) : on_end_of_headers(in);
  }
  if (cur_.field_lines == limits_.max_headers) return fail(431, kHeadOverMaxHeaders);
  const detail::FieldLine field = detail::parse_field_line(in.substr(cur_.line_begin, scan.length));
  if (field.http_status != 0) return fail(field.http_status, field.reason);
  if (!trailer) {
    fields_.push_back({cur_.line_begin, field.name_length, cur_.line_begin + field.value_begin,
                       field.value_length});
  }
  ++cur_.field_lines;
  cur_.header_bytes += scan.length + 2;
  return finish_line(scan.length, cur_.state);
}

RequestParser::Flow RequestParser::on_end_of_headers(std::string_view in) {
  bind_headers(in);
  const detail::Framing framing = detail::decide_framing(headers_, request_.version_minor, limits_);
  if (framing.http_status != 0) return fail(framing.http_status, framing.reason);
  request_.keep_alive = framing.keep_alive;
  cur_.body_begin = cur_.pos;
  cur_.chunked = framing.chunked;
  cur_.content_length = framing.content_length;
  cur_.continue_owed = framing.expect_continue;
  cur_.state = framing.chunked ? State::chunk_size : State::fixed_body;
  return Flow::next;
}

RequestParser::Flow RequestParser::on_fixed_body(std::string_view in) {
  if (in.size() - cur_.body_begin < cur_.content_length) return stop_with(kNeedMore);
  return complete(in, cur_.body_begin + cur_.content_length);
}

RequestParser::Flow RequestParser::on_chunk_size(std::string_view in) {
  const LineScan scan = detail::scan_line(in, cur_.line_begin, cur_.pos, kMaxChunkSizeLine);
  if (scan.status == LineStatus::too_long) return fail(400, "chunk-size line over 1024 bytes");
  if (scan.status != LineStatus::found) return stop_with(unfinished(scan.status));
  const std::string_view line = in.substr(cur_.line_begin, scan.length);
  std::uint64_t size = 0;
  std::size_t digits = 0;
  const detail::NumberStatus number = detail::parse_hex_prefix(line, size, digits);
  if (number == detail::NumberStatus::overflow) return fail(400, "chunk size overflows");
  if (number != detail::NumberStatus::ok || !is_chunk_ext(line.substr(digits))) {
    return fail(400, "malformed chunk-size line");
  }
  if (size > limits_.max_body - chunked_body_.size())
    return fail(413, kBodyOverMaxBody);
  cur_.chunk_left = static_cast<std::size_t>(size);  // at most max_body
  return finish_line(scan.length, size == 0 ? State::trailer_line : State::chunk_data);
}

RequestParser::Flow RequestParser::on_chunk_data(std::string_view in) {
  const std::size_t n = std::min(in.size() - cur_.pos, cur_.chunk_left);
  switch (chunked_body_.append(in.substr(cur_.pos, n), limits_.max_body)) {
    case buf::Growth::ok:
      break;
    case buf::Growth::over_connection:
      return fail(413, "chunked body over this connection's memory (limits.connection_bytes)");
    case buf::Growth::over_server:
      return fail(503, "server memory for request bodies is full (limits.server_bytes)");
    case buf::Growth::no_memory:
      return fail(503, "out of memory for the chunked body");
  }
  cur_.pos += n;
  cur_.chunk_left -= n;
  if (cur_.chunk_left > 0) return stop_with(kNeedMore);
  cur_.line_begin = cur_.pos;
  cur_.state = State::chunk_data_end;
  return Flow::next;
}

RequestParser::Flow RequestParser::on_chunk_data_end(std::string_view in) {
  constexpr std::string_view kCrlf = "\r\n";
  for (; cur_.pos < cur_.line_begin + kCrlf.size(); ++cur_.pos) {
    if (cur_.pos == in.size()) return stop_with(kNeedMore);
    if (in[cur_.pos] != kCrlf[cur_.pos - cur_.line_begin]) {
      return fail(400, "chunk data not followed by CRLF");
    }
  }
  cur_.line_begin = cur_.pos;
  cur_.state = State::chunk_size;
  return Flow::next;
}

// `length` is the line without its CRLF; cur_.pos is at the CR.
void RequestParser::skip_line(std::size_t length) {
  cur_.pos = cur_.line_begin + length + 2;
  cur_.line_begin = cur_.pos;
}

RequestParser::Flow RequestParser::finish_line(std::size_t length, State next) {
  skip_line(length);
  cur_.state = next;
  return Flow::next;
}

RequestParser::Flow RequestParser::complete(std::string_view in, std::size_t end) {
  cur_.pos = end;
  cur_.state = State::done;
  result_ = {ParseStatus::complete, end, 0, "complete"};
  bind(in);
  return Flow::stop;
}

RequestParser::Flow RequestParser::stop_with(const ParseResult& result) {
  result_ = result;
  if (result.status == ParseStatus::error) cur_.state = State::failed;
  return Flow::stop;
}

RequestParser::Flow RequestParser::fail(int http_status, const char* reason) {
  return stop_with(error(http_status, reason));
}

void RequestParser::bind_headers(std::string_view in) {
  headers_.clear();
  for (const FieldSpan& f : fields_) {
    headers_.push_back(
        {in.substr(f.name_begin, f.name_length), in.substr(f.value_begin, f.value_length)});
  }
  request_.headers = headers_;
}

void RequestParser::bind(std::string_view in) {
  request_.method_text = in.substr(cur_.request_begin, cur_.method_length);
  request_.target = in.substr(cur_.target_begin, cur_.target_length);
  request_.authority = in.substr(cur_.authority_begin, cur_.authority_length);
  const std::size_t question = request_.target.find('?');
  request_.path = request_.target.substr(0, question);
  request_.query = question == std::string_view::npos ? std::string_view()
                                                      : request_.target.substr(question + 1);
  bind_headers(in);
  request_.body = cur_.chunked ? chunked_body_.text()
                               : in.substr(cur_.body_begin, cur_.content_length);
}

}  // namespace sluice::proto::http1
