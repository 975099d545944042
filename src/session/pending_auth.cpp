// PendingAuth, and the public handle on it (AuthReply, AuthRequest's
// answer_later()).
#include "session/pending_auth.hpp"

namespace sluice::server {

namespace detail {

bool PendingAuth::give(const AuthDecision& decision) {
  if (sink_ == nullptr || decision.is_later() || std::this_thread::get_id() != loop_thread_) return false;
  if (in_call_) {
    early_ = decision;
  } else {
    sink_->decided(decision);
  }
  sink_ = nullptr;
  on_withdrawn_ = nullptr;
  return true;
}

void PendingAuth::withdraw() {
  if (sink_ == nullptr) return;
  sink_ = nullptr;
  withdrawn_ = true;
  // Moved out first: the function may drop the last handle to this.
  std::function<void()> fn = std::move(on_withdrawn_);
  on_withdrawn_ = nullptr;
  if (fn) fn();
}

}  // namespace detail

bool AuthReply::operator()(const AuthDecision& decision) const {
  return question_ != nullptr && question_->give(decision);
}

bool AuthReply::withdrawn() const { return question_ == nullptr || question_->withdrawn(); }

void AuthReply::on_withdrawn(std::function<void()> fn) const {
  if (question_ != nullptr && !question_->withdrawn()) question_->on_withdrawn(std::move(fn));
}

AuthReply AuthRequest::answer_later() const { return wait_room != nullptr ? wait_room->defer() : AuthReply(); }

}  // namespace sluice::server
