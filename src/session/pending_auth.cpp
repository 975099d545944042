// PendingAuth, and the public handle on it (AuthReply, AuthRequest's
// answer_later()).
#include "session/pending_auth.hpp"

namespace sluice::server {

namespace detail {

bool PendingAuth::give(const AuthDecision& decision, const std::shared_ptr<PendingAuth>& self) {
  if (decision.is_later()) return false;
  const bool on_loop = std::this_thread::get_id() == loop_thread_;
  if (!on_loop && (mailbox_ == nullptr || withdrawn())) return false;
  {
    // Whichever thread gives first gives the decision.
    const std::lock_guard lock(posted_mutex_);
    if (given_) return false;
    given_ = true;
    if (!on_loop) posted_ = decision;
  }
  return on_loop ? take(decision) : mailbox_->post(self);
}

void PendingAuth::take_posted() {
  std::optional<AuthDecision> decision;
  {
    const std::lock_guard lock(posted_mutex_);
    decision = std::move(posted_);
    posted_.reset();
  }
  if (decision) (void)take(*decision);
}

bool PendingAuth::take(const AuthDecision& decision) {
  if (sink_ == nullptr) return false;
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
  withdrawn_.store(true, std::memory_order_release);
  // Moved out first: the function may drop the last handle to this.
  std::function<void()> fn = std::move(on_withdrawn_);
  on_withdrawn_ = nullptr;
  if (fn) fn();
}

bool DecisionMailbox::post(std::shared_ptr<PendingAuth> question) {
  const std::lock_guard lock(mutex_);
  if (closed_) return false;
  posted_.push_back(std::move(question));
  // Under the lock: close() cannot finish, nor the loop go, while waking it.
  wake_();
  return true;
}

void DecisionMailbox::drain() {
  {
    const std::lock_guard lock(mutex_);
    draining_.swap(posted_);
  }
  for (const std::shared_ptr<PendingAuth>& question : draining_) question->take_posted();
  draining_.clear();
}

void DecisionMailbox::close() {
  const std::lock_guard lock(mutex_);
  closed_ = true;
  posted_.clear();
}

}  // namespace detail

bool AuthReply::operator()(const AuthDecision& decision) const {
  return question_ != nullptr && question_->give(decision, question_);
}

bool AuthReply::withdrawn() const { return question_ == nullptr || question_->withdrawn(); }

void AuthReply::on_withdrawn(std::function<void()> fn) const {
  if (question_ != nullptr && !question_->withdrawn()) question_->on_withdrawn(std::move(fn));
}

AuthReply AuthRequest::answer_later() const { return wait_room != nullptr ? wait_room->defer() : AuthReply(); }

}  // namespace sluice::server
