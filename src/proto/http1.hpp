// Owns: RequestParser, the strict, incremental, sans-IO HTTP/1.1 request
// parser (RFC 9112), the Request it produces, the FieldLines of a list
// field, and status_reason().
//
// The parser never touches a socket and never copies the request head: the
// caller keeps the connection's unconsumed bytes in its own buffer, appends
// what arrives and calls parse() again. The parser keeps offsets into that
// buffer (never pointers, so the caller may move it) and resumes where it
// stopped, so feeding a request byte by byte costs O(n) in total.
//
// Strict on purpose: anything RFC 9112 lets a server reject (bare CR or LF,
// obs-fold, whitespace before ':', conflicting or malformed framing) is
// rejected, because lenient parsing is where request smuggling lives.
// Limits are decided as soon as they are passed, before the rest arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "buf/charged_buffer.hpp"

namespace sluice::proto::http1 {

struct Limits {
  // Bytes of the request line, without its CRLF. Over it: 414.
  std::size_t max_request_line = 8192;
  // Bytes of the header field lines, each with its CRLF, plus those of the
  // chunked trailer; the request line and the empty line that ends the
  // section are not counted. Over it: 431.
  std::size_t max_header_bytes = 16384;
  // Header field lines plus trailer field lines. Over it: 431.
  std::size_t max_headers = 64;
  // Decoded body bytes (Content-Length, or the sum of the chunk sizes).
  // Over it: 413.
  std::size_t max_body = 1 << 20;
  // Charged for the chunked-body buffer past buf::kRestingCapacity (a
  // refused charge is 413 or 503, see parse()); null: not charged.
  buf::MemoryAccount* account = nullptr;
};

enum class Method : std::uint8_t { get, head, post, put, del, options, other };

struct Header {
  std::string_view name;   // as sent (case kept)
  std::string_view value;  // leading and trailing SP/HTAB removed
};

// The lines of one list field (RFC 9110 5.3). A sender may split a list
// over several field lines, which mean what one line holding their values
// joined by ", " means, so a check reads every line, not only the first:
// "Connection: keep-alive" then "Connection: Upgrade" asks for an upgrade.
// Either one value a caller holds, or every line of field `name` (ASCII
// case-insensitive) of a request's headers; `for (std::string_view value :
// lines)` visits their values in arrival order, none when the field is
// absent or the one value is empty.
class FieldLines {
 public:
  class Iterator {
   public:
    std::string_view operator*() const { return lines_->value_at(at_); }
    Iterator& operator++() {
      at_ = lines_->line_from(at_ + 1);
      return *this;
    }
    bool operator==(const Iterator&) const = default;

   private:
    friend class FieldLines;
    Iterator(const FieldLines* lines, std::size_t at) : lines_(lines), at_(at) {}
    const FieldLines* lines_;
    std::size_t at_;
  };

  FieldLines() = default;
  FieldLines(std::string_view value) : value_(value) {}  // NOLINT(google-explicit-constructor): one line
  FieldLines(const char* value) : value_(value) {}       // NOLINT(google-explicit-constructor)
  FieldLines(std::span<const Header> headers, std::string_view name) : headers_(headers), name_(name) {}

  [[nodiscard]] Iterator begin() const { return {this, line_from(0)}; }
  [[nodiscard]] Iterator end() const { return {this, past_end()}; }

 private:
  // The index of the first line at or after `from`, or past_end().
  [[nodiscard]] std::size_t line_from(std::size_t from) const;
  [[nodiscard]] std::size_t past_end() const { return name_.empty() ? 1 : headers_.size(); }
  [[nodiscard]] std::string_view value_at(std::size_t at) const { return name_.empty() ? value_ : headers_[at].value; }

  std::string_view value_;  // the one value, when name_ is empty
  std::span<const Header> headers_;
  std::string_view name_;
};

struct Request {
  Method method = Method::other;  // `other` for any method sluice does not name
  std::string_view method_text;   // as sent, case-sensitive (RFC 9110 9.1)
  std::string_view target;        // "/path?query", or "*" (OPTIONS only)
  // host[:port] of a target sent in absolute-form ("http://host/path"),
  // whose "/path?query" is then `target`; empty for origin-form.
  std::string_view authority;
  std::string_view path;          // target before the first '?', raw
  std::string_view query;         // target after the first '?', raw, no '?'
  int version_minor = 1;          // 0 or 1
  // HTTP/1.1: true unless Connection lists "close". HTTP/1.0: true only when
  // Connection lists "keep-alive" and not "close".
  bool keep_alive = false;
  std::span<const Header> headers;  // in arrival order, duplicates kept
  std::string_view body;            // decoded (Content-Length or chunked)

  // The first value of header `name` (ASCII case-insensitive), or "" when
  // there is none. Linear in the number of headers.
  [[nodiscard]] std::string_view header(std::string_view name) const;
  [[nodiscard]] bool has_header(std::string_view name) const;
  // How many times header `name` came. A field that is not a list may come
  // once: a second is the sender's error, not a choice between the two.
  [[nodiscard]] std::size_t header_count(std::string_view name) const;
  // Every line of list field `name`, for a check of the whole list.
  [[nodiscard]] FieldLines list(std::string_view name) const { return {headers, name}; }
  // The host the request is for: an absolute-form target's authority,
  // which a server must use in place of Host (RFC 9112 3.2.2), else Host.
  [[nodiscard]] std::string_view host() const { return authority.empty() ? header("Host") : authority; }
  // The client asked for an interim 100 (Continue) before it sends its
  // body (Expect: 100-continue).
  [[nodiscard]] bool expects_continue() const;
};

enum class ParseStatus : std::uint8_t { need_more, complete, error };

// The reason of a 413 for a body over Limits::max_body (Content-Length or
// chunked), the same pointer each time, so that a caller can tell it from
// the other 413s and name the limit in its answer.
inline constexpr char kBodyOverMaxBody[] = "request body over http.max_body";
// Likewise for the 414 and 431s of the other limits.
inline constexpr char kLineOverMaxRequestLine[] = "request line over http.max_request_line";
inline constexpr char kHeadOverMaxHeaderBytes[] = "header section over http.max_header_bytes";
inline constexpr char kHeadOverMaxHeaders[] = "more header fields than http.max_headers";

struct ParseResult {
  ParseStatus status;
  // On complete: how many leading bytes of `input` the request used (any
  // leading empty line included). The caller drops them and parses the next
  // pipelined request from the rest. Otherwise 0.
  std::size_t consumed;
  // On error: the status to answer with before closing (400, 413, 414, 431,
  // 501 or 505). Otherwise 0.
  int http_status;
  // Static text, never null: why, for logs and tests.
  const char* reason;
};

class RequestParser {
 public:
  // Reserves room for `limits.max_headers` headers now, so that parsing does
  // not allocate for them later.
  explicit RequestParser(const Limits& limits = {});

  // `input` is the connection's unconsumed bytes: those of the previous call
  // plus any newly arrived ones appended. It may live at a new address.
  //
  // Returns need_more until the request is whole, then complete (see
  // request()), or error with the HTTP status to send. After complete or
  // error, further calls return the same result (complete rebinds request()
  // to the new `input`) until reset().
  //
  // Errors: 400 for malformed syntax or framing (bare CR or LF, obs-fold,
  // bad token, target neither origin-form nor an http(s) absolute-form
  // with a path and no userinfo, missing or repeated Host in
  // HTTP/1.1, malformed or conflicting Content-Length, Content-Length with
  // Transfer-Encoding, Transfer-Encoding in HTTP/1.0, a malformed chunk-size
  // line or one over 1024 bytes, chunk data not followed by CRLF, `input`
  // shorter than on the previous call); 413 body over max_body; 414 request
  // line over max_request_line; 431 over max_header_bytes or max_headers;
  // 501 a Transfer-Encoding other than exactly "chunked"; 505 a well-formed
  // version other than HTTP/1.0 and HTTP/1.1.
  //
  // 413 also for a chunked body the connection's memory account cannot
  // hold (limits.connection_bytes), 503 for one the server's cannot
  // (limits.server_bytes): the reason names the key.
  //
  // Allocates only to grow the chunked-body buffer past its largest size so
  // far (its capacity is kept across reset() up to buf::kRestingCapacity).
  [[nodiscard]] ParseResult parse(std::string_view input);
  // The limits this parser applies.
  [[nodiscard]] const Limits& limits() const { return limits_; }

  // The request, after parse() returned complete. Its views point into the
  // `input` of the last parse() call, except a chunked body, which points
  // into a buffer the parser owns. Valid until reset(), the next parse(), or
  // the parser's destruction, and while that input is unchanged.
  [[nodiscard]] const Request& request() const { return request_; }

  // What the request being read will take of its input, head and body, once
  // its head is whole and its body has a Content-Length; 0 before, and for
  // a chunked body.
  [[nodiscard]] std::size_t declared_size() const {
    return cur_.state == State::fixed_body ? cur_.body_begin + cur_.content_length : 0;
  }
  // True once per request, after a parse() that returned need_more past
  // its head, when that head asked `Expect: 100-continue` (HTTP/1.1, with a
  // body): the caller sends `100 Continue`, and the client, which may be
  // waiting for it, sends its body. A body over max_body is refused (413)
  // at its head instead.
  [[nodiscard]] bool take_continue() { return std::exchange(cur_.continue_owed, false); }

  // Makes the parser ready for the next request on the same connection.
  // Keeps its buffers' capacity: no allocation per request in steady state,
  // except that a chunked body larger than buf::kRestingCapacity is given
  // back (and its charge with it).
  void reset();

 private:
  enum class State : std::uint8_t {
    start,
    request_line,
    header_line,
    fixed_body,
    chunk_size,
    chunk_data,
    chunk_data_end,
    trailer_line,
    done,
    failed,
  };
  enum class Flow : std::uint8_t { next, stop };

  // Where parsing stands, as offsets into the input (never pointers: the
  // caller may move its buffer between calls).
  struct Cursor {
    State state = State::start;
    std::size_t pos = 0;         // next byte to examine
    std::size_t line_begin = 0;  // first byte of the line being scanned
    std::size_t request_begin = 0;
    std::size_t method_length = 0;
    std::size_t target_begin = 0;
    std::size_t target_length = 0;
    std::size_t authority_begin = 0;
    std::size_t authority_length = 0;
    std::size_t header_bytes = 0;  // field and trailer lines, CRLFs included
    std::size_t field_lines = 0;   // field and trailer lines
    std::size_t body_begin = 0;
    std::size_t content_length = 0;
    std::size_t chunk_left = 0;  // bytes of the current chunk still to come
    bool chunked = false;
    bool continue_owed = false;  // see take_continue()
  };

  struct FieldSpan {
    std::size_t name_begin;
    std::size_t name_length;
    std::size_t value_begin;
    std::size_t value_length;
  };

  Flow step(std::string_view in);
  Flow on_start(std::string_view in);
  Flow on_request_line(std::string_view in);
  Flow on_field_line(std::string_view in, bool trailer);
  Flow on_end_of_headers(std::string_view in);
  Flow on_fixed_body(std::string_view in);
  Flow on_chunk_size(std::string_view in);
  Flow on_chunk_data(std::string_view in);
  Flow on_chunk_data_end(std::string_view in);
  void skip_line(std::size_t length);
  Flow finish_line(std::size_t length, State next);
  Flow complete(std::string_view in, std::size_t end);
  Flow stop_with(const ParseResult& result);
  Flow fail(int http_status, const char* reason);
  void bind_headers(std::string_view in);
  void bind(std::string_view in);

  Limits limits_;
  Cursor cur_;
  ParseResult result_{ParseStatus::need_more, 0, 0, "need more input"};
  std::vector<FieldSpan> fields_;  // header lines; trailers are not kept
  std::vector<Header> headers_;
  buf::ChargedBuffer chunked_body_;
  Request request_;
};

// The reason phrase for every status sluice sends (200, 204, 400, 401, 403,
// 404, 405, 408, 413, 414, 426, 429, 431, 500, 501, 503, 505); "Unknown"
// for others. Static storage.
[[nodiscard]] const char* status_reason(int status);

// A token as a method or a field name is one (letters, digits and
// !#$%&'*+-.^_`|~, at least one): what a configured name that goes into a
// header (a cookie's, a subprotocol's) must be.
[[nodiscard]] bool is_token(std::string_view text);

}  // namespace sluice::proto::http1
