// Fuzzes http1::RequestParser the way a connection drives it: the input (after
// its first byte) arrives in two chunks, the buffer moves between calls, and
// every complete request is dropped before the next pipelined one is parsed.
// The first byte picks the split point and, with its top bit, tight limits so
// that the limit paths are reached with short inputs.
//
// Invariants, abort() on violation: consumed is within the input and > 0; a
// complete request's views lie within the input (a chunked body: within no
// part of it) and respect the limits; parsing again after an answer repeats
// it, and a complete request follows its bytes to a new address; errors
// carry one of the documented statuses; and the split run gives exactly the
// answers of the run that sees the whole input at once.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/http1.hpp"

namespace {

using namespace sluice::proto::http1;

void check(bool ok) {
  if (!ok) std::abort();
}

bool within(std::string_view part, std::string_view whole) {
  if (part.empty()) return true;
  const auto p = reinterpret_cast<std::uintptr_t>(part.data());
  const auto w = reinterpret_cast<std::uintptr_t>(whole.data());
  return p >= w && p + part.size() <= w + whole.size();
}

bool disjoint(std::string_view a, std::string_view b) {
  const auto pa = reinterpret_cast<std::uintptr_t>(a.data());
  const auto pb = reinterpret_cast<std::uintptr_t>(b.data());
  return a.empty() || b.empty() || pa + a.size() <= pb || pb + b.size() <= pa;
}

// Reads every byte so that the sanitizer sees a view that outlived its
// bytes; the volatile sink keeps the reads from being optimized away.
volatile unsigned char g_sink = 0;

void touch(std::string_view s) {
  for (char c : s) g_sink = static_cast<unsigned char>(g_sink ^ static_cast<unsigned char>(c));
}

void check_request(const Request& r, std::string_view in, const Limits& limits) {
  check(within(r.method_text, in) && within(r.target, in));
  check(within(r.path, r.target) && within(r.query, r.target));
  check(r.version_minor == 0 || r.version_minor == 1);
  check(r.headers.size() <= limits.max_headers);
  touch(r.method_text);
  touch(r.target);
  for (const Header& h : r.headers) {
    check(within(h.name, in) && within(h.value, in) && !h.name.empty());
    touch(h.name);
    touch(h.value);
  }
  const bool chunked = r.has_header("transfer-encoding");
  check(chunked ? disjoint(r.body, in) : within(r.body, in));
  check(r.body.size() <= limits.max_body);
  touch(r.body);
}

void check_status(const ParseResult& r) {
  check(r.reason != nullptr);
  if (r.status != ParseStatus::complete) check(r.consumed == 0);
  if (r.status != ParseStatus::error) {
    check(r.http_status == 0);
    return;
  }
  const int s = r.http_status;
  check(s == 400 || s == 413 || s == 414 || s == 431 || s == 501 || s == 505);
}

bool same(const ParseResult& a, const ParseResult& b) {
  return a.status == b.status && a.consumed == b.consumed && a.http_status == b.http_status;
}

struct Answer {
  ParseStatus status;
  std::size_t consumed;
  int http_status;
  bool operator==(const Answer&) const = default;
};

// Parses and drops every complete request at the front of `buffer`; returns
// the first answer that is not complete.
ParseResult drain(RequestParser& parser, std::string& buffer, const Limits& limits,
                  std::vector<Answer>& answers) {
  ParseResult r = parser.parse(buffer);
  check_status(r);
  while (r.status == ParseStatus::complete) {
    check(r.consumed > 0 && r.consumed <= buffer.size());
    check_request(parser.request(), buffer, limits);
    // The same bytes at a new address: the request must follow them.
    const std::string moved = buffer;
    check(same(parser.parse(moved), r));
    check_request(parser.request(), moved, limits);
    answers.push_back({r.status, r.consumed, r.http_status});
    buffer.erase(0, r.consumed);
    parser.reset();
    r = parser.parse(buffer);
    check_status(r);
  }
  return r;
}

std::vector<Answer> run(std::string_view first, std::string_view second, const Limits& limits) {
  RequestParser parser(limits);
  std::vector<Answer> answers;
  std::string buffer;
  for (std::string_view chunk : {first, second}) {
    // A fresh allocation each time: a pointer kept from the last call would
    // point into freed memory.
    std::string grown = buffer + std::string(chunk);
    buffer = std::move(grown);
    const ParseResult r = drain(parser, buffer, limits, answers);
    check(same(parser.parse(buffer), r));
    if (r.status == ParseStatus::error) {
      answers.push_back({r.status, r.consumed, r.http_status});
      return answers;
    }
  }
  if (!buffer.empty()) answers.push_back({ParseStatus::need_more, 0, 0});
  return answers;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t split = input.size() * (data[0] & 0x7f) / 0x7f;
  Limits limits;
  if ((data[0] & 0x80) != 0) {
    limits = {.max_request_line = 64, .max_header_bytes = 128, .max_headers = 4, .max_body = 64};
  }
  const std::vector<Answer> whole = run(input, {}, limits);
  const std::vector<Answer> split_run = run(input.substr(0, split), input.substr(split), limits);
  check(whole == split_run);
  return 0;
}
