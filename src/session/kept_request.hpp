// Owns: KeptRequest, a copy of the request that opened a WebSocket (method,
// path, query, header fields), kept with the stream so that the checks made
// after the upgrade (a /ws subscribe, a topic stream's first message) are
// shown the same request as the upgrade was. Kept only while an authorizer
// is installed; its size is bounded by the request limits (the request line
// and http.max_header_bytes).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "proto/http1.hpp"
#include "sluice/authorization.hpp"

namespace sluice::session {

// What a check is shown of the request, as views.
struct RequestView {
  std::string_view method;
  std::string_view path;
  std::string_view query;
  server::Headers headers;
};

class KeptRequest {
 public:
  void keep(const proto::http1::Request& request);
  [[nodiscard]] bool empty() const { return text_.empty(); }
  // Valid until the next keep().
  [[nodiscard]] RequestView view() const;

 private:
  struct Span {
    std::size_t at = 0;
    std::size_t size = 0;
  };
  Span add(std::string_view part);
  [[nodiscard]] std::string_view at(Span span) const { return std::string_view(text_).substr(span.at, span.size); }

  std::string text_;  // every part, one after another
  Span method_, path_, query_;
  std::vector<std::pair<Span, Span>> fields_;
  mutable std::vector<server::HeaderField> views_;  // fields_ as views into text_
};

}  // namespace sluice::session
