#include "conn/outlet.hpp"

namespace sluice::conn {

EnqueueStatus Outlet::send_data(buf::FrameRef frame) {
  if (closed_) return EnqueueStatus::full;
  const EnqueueStatus status = queue_.push_data(std::move(frame));
  if (status == EnqueueStatus::ok) want_flush();
  return status;
}

EnqueueStatus Outlet::send_control(buf::FrameRef frame) {
  if (closed_) return EnqueueStatus::full;
  const EnqueueStatus status = queue_.push_control(std::move(frame));
  if (status == EnqueueStatus::ok) want_flush();
  return status;
}

void Outlet::send_last(buf::FrameRef frame) {
  if (closed_) return;
  queue_.push_last(std::move(frame));
  want_flush();
}

}  // namespace sluice::conn
