#include "inbox.hpp"

#include <algorithm>
#include <utility>

namespace sluice::client::detail {

std::size_t event_bytes(const Event& event) {
  return event.data.size() + event.id.size() + event.topic.size() + event.type.size();
}

Inbox::Inbox(const ClientOptions& options)
    : delivery_(options.delivery),
      queue_bytes_(options.queue_bytes),
      max_slots_(std::max<std::size_t>(options.latest_slots, 1)),
      latest_key_(options.latest_key),
      ring_(std::max<std::size_t>(options.queue_events, 1)) {
  if (delivery_ == Delivery::latest) ready_.resize(max_slots_);
}

bool Inbox::push(Event& event) {
  std::unique_lock lock(mutex_);
  if (cancelled_) return false;
  const bool conflated = delivery_ == Delivery::latest && event.kind == EventKind::message;
  const bool pushed = conflated ? push_latest(event, lock) : push_queue(event, lock);
  if (!pushed) return false;
  ++pushed_;
  lock.unlock();
  readable_.notify_one();
  return true;
}

template <class HasRoom>
void Inbox::wait_for_room(std::unique_lock<std::mutex>& lock, HasRoom has_room) {
  if (has_room()) return;
  ++reader_waits_;
  reader_waiting_ = true;
  room_.wait(lock, [&] { return cancelled_ || has_room(); });
  reader_waiting_ = false;
}

bool Inbox::queue_has_room(std::size_t size) const {
  // One event larger than the whole byte budget still passes, alone.
  return count_ < ring_.size() && (count_ == 0 || bytes_ + size <= queue_bytes_);
}

bool Inbox::push_queue(Event& event, std::unique_lock<std::mutex>& lock) {
  const std::size_t size = event_bytes(event);
  wait_for_room(lock, [&] { return queue_has_room(size); });
  if (cancelled_) return false;
  event.overwritten = 0;
  std::swap(ring_[(head_ + count_) % ring_.size()], event);
  ++count_;
  bytes_ += size;
  return true;
}

bool Inbox::push_latest(Event& event, std::unique_lock<std::mutex>& lock) {
  key_.assign(latest_key_ ? latest_key_(event) : std::string_view(event.topic));
  std::size_t index = 0;
  if (!find_slot(key_, index, lock)) return false;
  Slot& slot = slots_[index];
  std::uint64_t replaced = 0;
  if (slot.unread) {
    replaced = slot.event.overwritten + 1;
    ++overwritten_;
    bytes_ -= event_bytes(slot.event);
  } else {
    ready_[(ready_head_ + ready_count_) % ready_.size()] = index;
    ++ready_count_;
  }
  bytes_ += event_bytes(event);
  std::swap(slot.event, event);
  slot.event.overwritten = replaced;
  slot.unread = true;
  return true;
}

// The slot for `key`: its own, else a new or a read one, waiting while every
// slot holds an unread value. Only the reader changes index_, so what was
// found before a wait still holds after it.
bool Inbox::find_slot(std::string_view key, std::size_t& index, std::unique_lock<std::mutex>& lock) {
  if (const auto it = index_.find(key); it != index_.end()) {
    index = it->second;
    return true;
  }
  wait_for_room(lock, [&] { return claim_slot(index); });
  if (cancelled_) return false;
  slots_[index].key.assign(key);
  index_.emplace(slots_[index].key, index);
  return true;
}

bool Inbox::claim_slot(std::size_t& index) {
  if (slots_.size() < max_slots_) {
    index = slots_.size();
    slots_.emplace_back();
    return true;
  }
  // Linear, but only when a new key arrives with every slot in use.
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].unread) continue;
    index_.erase(slots_[i].key);
    index = i;
    return true;
  }
  return false;
}

void Inbox::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  room_.notify_all();
  readable_.notify_all();
}

void Inbox::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  readable_.notify_all();
}

bool Inbox::take(Event& out) {
  if (count_ > 0) {
    std::swap(out, ring_[head_]);
    head_ = (head_ + 1) % ring_.size();
    --count_;
  } else if (ready_count_ > 0) {
    Slot& slot = slots_[ready_[ready_head_]];
    ready_head_ = (ready_head_ + 1) % ready_.size();
    --ready_count_;
    std::swap(out, slot.event);
    slot.unread = false;
  } else {
    return false;
  }
  bytes_ -= event_bytes(out);
  ++taken_;
  return true;
}

NextStatus Inbox::pop(Event& out, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  readable_.wait_for(lock, wait, [&] { return count_ > 0 || ready_count_ > 0 || closed_ || cancelled_; });
  if (!take(out)) return closed_ || cancelled_ ? NextStatus::ended : NextStatus::timeout;
  lock.unlock();
  room_.notify_one();
  return NextStatus::event;
}

std::uint64_t Inbox::pushed() const {
  std::lock_guard lock(mutex_);
  return pushed_;
}

void Inbox::fill_stats(ClientStats& stats) const {
  std::lock_guard lock(mutex_);
  stats.events = pushed_;
  stats.taken = taken_;
  stats.overwritten = overwritten_;
  stats.reader_waits = reader_waits_;
  stats.reader_waiting = reader_waiting_;
  stats.queued = count_ + ready_count_;
  stats.queued_bytes = bytes_;
}

}  // namespace sluice::client::detail
