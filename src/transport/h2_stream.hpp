// Owns: H2Stream, one HTTP/2 stream's state on the server: the request's
// header fields as they arrive (checked against the header limits), the
// body count, the stream's outgoing queue, and where the queue stands in
// the DATA frames being written, what its latency gate lets it send, and
// where its bytes went on the wire (while a gate watches it).
//
// A session keeps its spent streams to reuse (up to the concurrent-stream
// limit), so a connection that opens stream after stream (an HTTP/2
// publisher) does not allocate a queue and header buffer for each. What a
// stream holds (footprint()) is charged to the connection's memory account
// by the session; a spent stream whose header storage grew past
// kRestingStorage gives it back (trim()) before it is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conn/out_queue.hpp"
#include "transport/h2_types.hpp"
#include "transport/h2_wire_marks.hpp"

namespace sluice::transport::detail {

// Header storage a spent stream keeps for the next request: enough for a
// browser's or a publisher's usual headers.
inline constexpr std::size_t kRestingStorage = 2048;

class H2Stream {
 public:
  explicit H2Stream(const conn::OutQueueLimits& limits) : queue(limits) {}

  // Makes a spent stream new for `id`.
  void reset(std::int32_t id);

  // Adds one header field (pseudo-headers included). Returns false, keeping
  // nothing more, once the list passes `limits` (header_list_too_big()).
  bool add_header(std::string_view name, std::string_view value, const H2Limits& limits);
  [[nodiscard]] bool header_list_too_big() const { return too_big_; }
  // Too big for its count of fields (http.max_headers), not its bytes.
  [[nodiscard]] bool too_many_header_fields() const { return too_many_fields_; }
  // The request, its views into this stream; valid until the next reset().
  [[nodiscard]] H2Request request(bool end_stream);
  // Bytes this stream holds: the object and its header storage (its
  // queue's slots grow with what is queued and are bounded by send.*).
  [[nodiscard]] std::size_t footprint() const;
  // Frees the header storage when it is larger than `keep` bytes; the
  // request's fields are gone after it.
  void trim(std::size_t keep = kRestingStorage);

  std::int32_t id = 0;
  conn::OutQueue queue;
  std::size_t body_bytes = 0;  // request body received so far
  std::size_t unconsumed = 0;  // bytes handed to the owner, not yet consumed
  std::size_t in_round = 0;    // bytes of `queue` in the DATA frames of the write under way
  std::uint64_t sent = 0;      // bytes of `queue` gone into DATA frames since the stream opened
  // What the stream's latency gate lets its queue start in each flush
  // (H2Session::allow()); the default holds nothing back.
  conn::DataAllowance allowance;
  std::size_t budget = SIZE_MAX;  // bytes of `queue` the flush under way may still take
  std::uint64_t budget_flush = 0;  // the flush `budget` was worked out for
  H2WireMarks marks;               // where `sent` bytes lie on the wire, once watched
  bool held = false;               // the allowance left bytes waiting in the last flush
  bool told = false;           // the owner saw on_request()
  bool responded = false;      // response headers submitted
  bool streaming = false;      // a response body is open: DATA comes from `queue`
  bool ending = false;         // finish() called: END_STREAM once the queue drains
  bool deferred = false;       // nghttp2 was told there is no data for now
  bool refused = false;        // the engine answered (413/431); the owner does not see it
  bool stop_sender = false;    // once the answer is out, RST_STREAM(NO_ERROR) to a client still sending
  bool tunnel = false;         // an extended CONNECT: its DATA is a byte stream, not a body
  bool closed = false;         // gone; released once no write refers to it
  std::size_t charged = 0;     // what the session charged for it (footprint() when last counted)

 private:
  struct Field {
    std::uint32_t name_at, name_length, value_at, value_length;
  };
  [[nodiscard]] std::string_view view(std::uint32_t at, std::uint32_t length) const {
    return std::string_view(bytes_).substr(at, length);
  }

  std::string bytes_;          // names and values, back to back
  std::vector<Field> fields_;  // regular header fields
  std::vector<H2Header> views_;
  Field method_{}, scheme_{}, authority_{}, path_{}, protocol_{};
  std::size_t list_bytes_ = 0;
  bool too_big_ = false;
  bool too_many_fields_ = false;
  // A client may split its cookies into crumbs, one field each (RFC 9113
  // 8.2.3), as browsers do: the fields past the first are not counted
  // against http.max_headers (the list's bytes still are), so that what
  // one Cookie line carries over HTTP/1.1 passes over HTTP/2 too.
  bool cookie_seen_ = false;
  std::size_t cookie_crumbs_ = 0;
};

}  // namespace sluice::transport::detail
