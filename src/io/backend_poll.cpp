// poll(2) backend: level-triggered, O(n) per wait. The pollfd array stays
// dense; `slot_of_` maps an fd to its index so add/modify/remove are O(1).
#include <poll.h>

#include <cerrno>
#include <vector>

#include "io/backend.hpp"

namespace sluice::io {

namespace {

class PollBackend final : public Backend {
 public:
  int add(int fd, std::uint32_t interest, void* tag) override {
    if (fd < 0) return -EBADF;
    if (static_cast<std::size_t>(fd) >= slot_of_.size()) slot_of_.resize(fd + 1, -1);
    if (slot_of_[fd] >= 0) return -EEXIST;
    slot_of_[fd] = static_cast<int>(fds_.size());
    fds_.push_back(pollfd{fd, to_poll(interest), 0});
    tags_.push_back(tag);
    return 0;
  }

  int modify(int fd, std::uint32_t interest, void* tag) override {
    const int slot = slot_of(fd);
    if (slot < 0) return -ENOENT;
    fds_[slot].events = to_poll(interest);
    tags_[slot] = tag;
    return 0;
  }

  int remove(int fd) override {
    const int slot = slot_of(fd);
    if (slot < 0) return -ENOENT;
    const int last = static_cast<int>(fds_.size()) - 1;
    fds_[slot] = fds_[last];
    tags_[slot] = tags_[last];
    slot_of_[fds_[slot].fd] = slot;
    fds_.pop_back();
    tags_.pop_back();
    slot_of_[fd] = -1;
    return 0;
  }

  int wait(std::span<ReadyEvent> out, int timeout_ms) override {
    const int n = ::poll(fds_.data(), fds_.size(), timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -errno;
    std::size_t count = 0;
    for (std::size_t i = 0; i < fds_.size() && count < out.size(); ++i) {
      if (fds_[i].revents != 0) out[count++] = ReadyEvent{tags_[i], from_poll(fds_[i].revents)};
    }
    return static_cast<int>(count);
  }

  bool edge_triggered() const override { return false; }

 private:
  static short to_poll(std::uint32_t interest) {
    short bits = 0;
    if (interest & kReadable) bits |= POLLIN;
    if (interest & kWritable) bits |= POLLOUT;
    return bits;
  }

  static std::uint32_t from_poll(short bits) {
    std::uint32_t ready = 0;
    if (bits & POLLIN) ready |= kReadable;
    if (bits & POLLOUT) ready |= kWritable;
    if (bits & (POLLHUP | POLLRDHUP)) ready |= kHangup;
    if (bits & (POLLERR | POLLNVAL)) ready |= kError;
    return ready;
  }

  int slot_of(int fd) const {
    return fd >= 0 && static_cast<std::size_t>(fd) < slot_of_.size() ? slot_of_[fd] : -1;
  }

  std::vector<pollfd> fds_;
  std::vector<void*> tags_;
  std::vector<int> slot_of_;
};

}  // namespace

std::unique_ptr<Backend> make_poll_backend() { return std::make_unique<PollBackend>(); }

}  // namespace sluice::io
