#include "io/read_queue.hpp"

#include <algorithm>

namespace sluice::io {

std::size_t ReadQueue::turn(std::size_t own_turn, std::size_t floor) const {
  return std::min(own_turn, std::max(left_, floor));
}

void ReadQueue::push_back(Reader* reader) {
  if (reader->queued_) return;
  reader->queued_ = true;
  reader->queued_in_ = round_;
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
  // The line is first in, first out: the first reader that joined it in
  // this round marks where the readers that were waiting end.
  ++round_;
  for (bool first = true; head_ != nullptr && head_->queued_in_ != round_ && (left_ > 0 || first); first = false) {
    pop_front()->read_turn();
  }
}

}  // namespace sluice::io
