// Owns: H2HeldResponse, the HEADERS of an HTTP/2 stream sent when the
// stream says (HeldResponse): the fields are its kind's (an SSE stream's,
// a WebSocket's), and the connection is told the status that went, which
// its access log records; a stream refused for its topics' place is
// logged 503, as its client was answered, not 200.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "session/held_response.hpp"
#include "transport/h2_session.hpp"

namespace sluice::session {

// What hears of each such response that went: the connection, whose access
// log's line for the request says the status.
class H2ResponseListener {
 public:
  virtual void stream_answered(std::int32_t stream, int status) = 0;

 protected:
  ~H2ResponseListener() = default;
};

class H2HeldResponse : public HeldResponse {
 public:
  H2HeldResponse(transport::H2Session& h2, H2ResponseListener& listener, std::int32_t stream)
      : h2_(h2), listener_(listener), stream_(stream) {}
  virtual ~H2HeldResponse() = default;
  H2HeldResponse(const H2HeldResponse&) = delete;
  H2HeldResponse& operator=(const H2HeldResponse&) = delete;

  [[nodiscard]] bool respond(int status) final;

 protected:
  static constexpr std::size_t kMaxFields = 6;
  // The fields beside :status of a response with `status`, into `out`;
  // returns how many.
  [[nodiscard]] virtual std::size_t fields(int status, std::span<transport::H2Header, kMaxFields> out) const = 0;

 private:
  transport::H2Session& h2_;
  H2ResponseListener& listener_;
  const std::int32_t stream_;
};

}  // namespace sluice::session
