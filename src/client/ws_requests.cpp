#include "ws_requests.hpp"

#include <algorithm>

namespace sluice::client::detail {

namespace {

std::size_t request_bytes(const WsRequest& r) {
  return r.topic.size() + r.data.size() + r.event.size() + r.key.size() + r.since.size() + r.policy.size();
}

}  // namespace

WsRequests::WsRequests(std::size_t max_pending, std::size_t max_bytes)
    : max_pending_(max_pending), max_bytes_(max_bytes) {}

Submit WsRequests::push(WsRequest&& request) {
  const std::size_t size = request_bytes(request);
  std::lock_guard lock(mutex_);
  if (closed_) return {SubmitStatus::stopped, 0};
  const bool over_bytes = !queued_.empty() && queued_bytes_ + size > max_bytes_;
  if (unanswered_ >= max_pending_ || over_bytes) return {SubmitStatus::full, 0};
  request.req = ++last_req_;
  queued_bytes_ += size;
  ++unanswered_;
  queued_.push_back(std::move(request));
  return {SubmitStatus::queued, last_req_};
}

void WsRequests::take(std::vector<WsRequest>& out) {
  out.clear();
  std::lock_guard lock(mutex_);
  out.swap(queued_);
  queued_bytes_ = 0;
}

void WsRequests::answered(std::size_t n) {
  std::lock_guard lock(mutex_);
  unanswered_ -= std::min(n, unanswered_);
}

void WsRequests::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
}

std::uint64_t WsRequests::next_req() {
  std::lock_guard lock(mutex_);
  return ++last_req_;
}

}  // namespace sluice::client::detail
