#include "transport/queue_peek.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sluice::transport {

namespace {

// Records the iovecs of the flush's first gather and takes nothing, so the
// flush stops (blocked) with the queue as it was.
class PeekWriter final : public conn::Writer {
 public:
  PeekWriter(std::size_t skip, std::size_t max_bytes, struct iovec* out, int max_out)
      : skip_(skip), left_(max_bytes), out_(out), max_out_(max_out) {}

  long writev(const struct iovec* iov, int count) override {
    for (int i = 0; i < count && left_ > 0 && result_.count < max_out_; ++i) {
      std::size_t length = iov[i].iov_len;
      if (skip_ >= length) {
        skip_ -= length;
        continue;
      }
      const std::size_t take = std::min(length - skip_, left_);
      out_[result_.count++] = iovec{static_cast<char*>(iov[i].iov_base) + skip_, take};
      result_.bytes += take;
      left_ -= take;
      skip_ = 0;
    }
    return 0;
  }

  [[nodiscard]] Peeked result() const { return result_; }

 private:
  std::size_t skip_;
  std::size_t left_;
  struct iovec* out_;
  int max_out_;
  Peeked result_;
};

// Takes up to `left` bytes over however many writev calls the flush makes.
class TakeWriter final : public conn::Writer {
 public:
  explicit TakeWriter(std::size_t bytes) : left_(bytes) {}

  long writev(const struct iovec* iov, int count) override {
    std::size_t offered = 0;
    for (int i = 0; i < count; ++i) offered += iov[i].iov_len;
    const std::size_t took = std::min(offered, left_);
    left_ -= took;
    taken_ += took;
    return took == 0 ? -EAGAIN : static_cast<long>(took);
  }

  [[nodiscard]] std::size_t taken() const { return taken_; }

 private:
  std::size_t left_;
  std::size_t taken_ = 0;
};

}  // namespace

Peeked peek(conn::OutQueue& queue, std::size_t skip, std::size_t max_bytes, struct iovec* iov, int max_iov,
            conn::DataAllowance allowance) {
  PeekWriter writer(skip, max_bytes, iov, max_iov);
  (void)queue.flush(writer, allowance);
  return writer.result();
}

std::size_t peekable(conn::OutQueue& queue, std::size_t skip, std::size_t max_bytes, int max_iov,
                     conn::DataAllowance allowance) {
  struct iovec scratch[IOV_MAX];
  return peek(queue, skip, max_bytes, scratch, std::min(max_iov, IOV_MAX), allowance).bytes;
}

std::size_t take(conn::OutQueue& queue, std::size_t bytes) {
  if (bytes == 0) return 0;
  TakeWriter writer(bytes);
  (void)queue.flush(writer);
  return writer.taken();
}

std::size_t copy_out(conn::OutQueue& queue, std::size_t skip, std::size_t bytes, char* out) {
  struct iovec iov[IOV_MAX];
  std::size_t copied = 0;
  while (copied < bytes) {
    const Peeked got = peek(queue, skip + copied, bytes - copied, iov, IOV_MAX);
    if (got.bytes == 0) break;
    for (int i = 0; i < got.count; ++i) {
      std::memcpy(out + copied, iov[i].iov_base, iov[i].iov_len);
      copied += iov[i].iov_len;
    }
  }
  return copied;
}

}  // namespace sluice::transport
