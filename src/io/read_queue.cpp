#include "io/read_queue.hpp"

#include <algorithm>

namespace sluice::io {

std::size_t ReadQueue::turn(std::size_t own_turn, std::size_t floor) const {
  return std::min(own_turn, std::max(left_, floor));
}

void ReadQueue::push_back(Reader* reader) {
  if (reader->queued_) return;
  reader->queued_ = true;
  reader->next_ = nullptr;
  reader->prev_ = tail_;
  (tail_ != nullptr ? tail_->next_ : head_) = reader;
  tail_ = reader;
  ++size_;
}

void ReadQueue::remove(Reader* reader) {
  if (!reader->queued_) return;
  reader->queued_ = false;
  (reader->prev_ != nullptr ? reader->prev_->next_ : head_) = reader->next_;
  (reader->next_ != nullptr ? reader->next_->prev_ : tail_) = reader->prev_;
  reader->next_ = reader->prev_ = nullptr;
  --size_;
}

Reader* ReadQueue::pop_front() {
  Reader* reader = head_;
  remove(reader);
  return reader;
}

void ReadQueue::serve() {
  // Counted, not walked to a remembered tail: a turn may take other readers
  // out of the line (a connection closed by another's request).
  std::size_t in_line = size_;
  for (std::size_t served = 0; in_line > 0 && head_ != nullptr && (left_ > 0 || served == 0); ++served, --in_line) {
    pop_front()->read_turn();
  }
}

}  // namespace sluice::io
