// Owns: H2Stream, one HTTP/2 stream's state on the server: the request's
// header fields as they arrive (checked against the header limits), the
// body count, the stream's outgoing queue, and where the queue stands in
// the DATA frames being written.
//
// A session keeps its spent streams to reuse (up to the concurrent-stream
// limit), so a connection that opens stream after stream (an HTTP/2
// publisher) does not allocate a queue and header buffer for each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conn/out_queue.hpp"
#include "transport/h2_types.hpp"

namespace sluice::transport::detail {

class H2Stream {
 public:
  explicit H2Stream(const conn::OutQueueLimits& limits) : queue(limits) {}

  // Makes a spent stream new for `id`.
  void reset(std::int32_t id);

  // Adds one header field (pseudo-headers included). Returns false, keeping
  // nothing more, once the list passes `limits` (header_list_too_big()).
  bool add_header(std::string_view name, std::string_view value, const H2Limits& limits);
  [[nodiscard]] bool header_list_too_big() const { return too_big_; }
  // The request, its views into this stream; valid until the next reset().
  [[nodiscard]] H2Request request(bool end_stream);

  std::int32_t id = 0;
  conn::OutQueue queue;
  std::size_t body_bytes = 0;  // request body received so far
  std::size_t unconsumed = 0;  // bytes handed to the owner, not yet consumed
  std::size_t in_round = 0;    // bytes of `queue` in the DATA frames of the write under way
  bool told = false;           // the owner saw on_request()
  bool responded = false;      // response headers submitted
  bool streaming = false;      // a response body is open: DATA comes from `queue`
  bool ending = false;         // finish() called: END_STREAM once the queue drains
  bool deferred = false;       // nghttp2 was told there is no data for now
  bool refused = false;        // the engine answered (413/431); the owner does not see it
  bool tunnel = false;         // an extended CONNECT: its DATA is a byte stream, not a body
  bool closed = false;         // gone; released once no write refers to it

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
};

}  // namespace sluice::transport::detail
