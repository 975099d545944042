// Owns: KeptRequest, a copy of the request that opened a WebSocket (method,
// path, query, header fields), kept with the stream so that the checks made
// after the upgrade (a /ws subscribe, a topic stream's first message) are
// shown the same request as the upgrade was. Kept only while an authorizer
// is installed; its size is bounded by the request limits (the request line
// and http.max_header_bytes, or h2.max_header_list_bytes).
//
// The copy is the client's to grow, once per stream: over HTTP/2 a
// connection keeps one per WebSocket stream, up to h2.max_concurrent_streams
// of them. So what it reserves is charged to the connection's memory
// account before it is made, and given back when the copy goes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "buf/memory_account.hpp"
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
  KeptRequest() = default;
  ~KeptRequest() { let_go(); }
  KeptRequest(const KeptRequest&) = delete;
  KeptRequest& operator=(const KeptRequest&) = delete;
  // The copy and its charge move (an HTTP/2 stream keeps its request
  // before its Peer is made, so that one it cannot hold costs nothing more).
  KeptRequest(KeptRequest&& other) noexcept { take(other); }
  KeptRequest& operator=(KeptRequest&& other) noexcept {
    if (this != &other) {
      let_go();
      take(other);
    }
    return *this;
  }

  // Copies `request` in place of what was kept, its storage charged to
  // `account` first (null: nothing charged; the account must outlive this
  // object). Refused: nothing is kept, nothing charged.
  [[nodiscard]] buf::ChargeStatus keep(const proto::http1::Request& request, buf::MemoryAccount* account);
  [[nodiscard]] bool empty() const { return text_.empty(); }
  // Bytes charged for the copy now.
  [[nodiscard]] std::size_t charged() const { return charged_; }
  // Valid until the next keep().
  [[nodiscard]] RequestView view() const;

 private:
  struct Span {
    std::size_t at = 0;
    std::size_t size = 0;
  };
  using Field = std::pair<Span, Span>;
  Span add(std::string_view part);
  [[nodiscard]] std::string_view at(Span span) const { return std::string_view(text_).substr(span.at, span.size); }
  // Frees the copy's storage and gives its charge back.
  void let_go();
  // Takes `other`'s copy and charge, leaving it empty.
  void take(KeptRequest& other);

  std::string text_;  // every part, one after another
  Span method_, path_, query_;
  std::vector<Field> fields_;
  mutable std::vector<server::HeaderField> views_;  // fields_ as views into text_
  buf::MemoryAccount* account_ = nullptr;
  std::size_t charged_ = 0;
};

}  // namespace sluice::session
