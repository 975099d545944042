// Owns: WsRequests, the bounded hand-off of WsClient's requests from the
// application's threads to the client's thread, and the count of requests
// still waiting for their answer (which is what bounds it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/client/ws_client.hpp"

namespace sluice::client::detail {

struct WsRequest {
  enum class Op : std::uint8_t { subscribe, unsubscribe, publish };
  Op op = Op::publish;
  std::uint64_t req = 0;
  std::string topic;
  std::string data;    // publish
  std::string event;   // publish
  std::string key;     // publish
  std::string since;   // subscribe
  std::string policy;  // subscribe
};

class WsRequests {
 public:
  WsRequests(std::size_t max_pending, std::size_t max_bytes);

  // Numbers `request` and queues it, unless kMaxPendingRequests are
  // unanswered or the queued ones hold max_bytes (full), or close() was
  // called (stopped).
  Submit push(WsRequest&& request);
  // Moves every queued request into `out` (emptied first).
  void take(std::vector<WsRequest>& out);
  // `n` requests were answered (or given up on).
  void answered(std::size_t n);
  void close();
  // A number for a request the client makes itself (a re-subscription).
  std::uint64_t next_req();

 private:
  const std::size_t max_pending_;
  const std::size_t max_bytes_;
  std::mutex mutex_;
  std::vector<WsRequest> queued_;
  std::size_t queued_bytes_ = 0;
  std::size_t unanswered_ = 0;
  std::uint64_t last_req_ = 0;
  bool closed_ = false;
};

}  // namespace sluice::client::detail
