// Owns: MemoryLink, an embedded::Link whose "stack" is a string: what the
// server writes is appended to wire(), up to `room` bytes per flush (a
// slow peer), and the test hands it input as a peer would. The core's
// tests run with it on the host and on the Cortex-M board alike, where no
// TCP stack exists; tests/embedded/lwip runs the same server on a real lwIP.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "conn/out_queue.hpp"
#include "embedded/link.hpp"
#include "embedded/push_server.hpp"

namespace sluice::test {

class MemoryLink final : public embedded::Link {
 public:
  MemoryLink(embedded::PushServer& server, embedded::PushConnection& connection)
      : server_(server), connection_(connection), queue_({}, {control_, data_}) {
    server_.opened(connection_, *this);
  }

  conn::OutQueue& out() override { return queue_; }
  [[nodiscard]] std::string_view input() const override { return {input_, used_}; }
  [[nodiscard]] std::size_t input_capacity() const override { return sizeof input_; }
  void consume(std::size_t n) override {
    std::memmove(input_, input_ + n, used_ - n);
    used_ -= n;
  }
  [[nodiscard]] bool input_closed() const override { return input_closed_; }
  void flush() override {
    if (closed_) return;
    (void)queue_.flush(writer_);
    if (closing_ && queue_.empty()) {
      closed_ = true;
      server_.closed(connection_);
    }
  }
  void close() override {
    closing_ = true;
    flush();
  }
  void abort() override {
    if (closed_) return;
    queue_.clear();
    closed_ = true;
    aborted_ = true;
    server_.closed(connection_);
  }

  // The peer sends `bytes` (as much as the input buffer takes).
  void receive(std::string_view bytes) {
    const std::size_t n = std::min(bytes.size(), sizeof input_ - used_);
    std::memcpy(input_ + used_, bytes.data(), n);
    used_ += n;
    server_.input(connection_);
  }
  void peer_closes() {
    input_closed_ = true;
    server_.input(connection_);
  }

  void set_room(std::size_t bytes_per_flush) { writer_.room = bytes_per_flush; }
  // Makes room in wire() up front, so a test that counts allocations
  // counts the server's alone.
  void reserve_wire(std::size_t bytes) { writer_.wire.reserve(bytes); }
  [[nodiscard]] const std::string& wire() const { return writer_.wire; }
  [[nodiscard]] bool closed() const { return closed_; }
  [[nodiscard]] bool aborted() const { return aborted_; }

 private:
  struct StringWriter final : conn::Writer {
    long writev(const struct iovec* iov, int count) override {
      std::size_t taken = 0;
      for (int i = 0; i < count && taken < room; ++i) {
        const std::size_t n = std::min(iov[i].iov_len, room - taken);
        wire.append(static_cast<const char*>(iov[i].iov_base), n);
        taken += n;
      }
      return taken == 0 ? -EAGAIN : static_cast<long>(taken);
    }
    std::string wire;
    std::size_t room = SIZE_MAX;
  };

  embedded::PushServer& server_;
  embedded::PushConnection& connection_;
  conn::QueuedFrame control_[4];
  conn::QueuedFrame data_[16];
  conn::OutQueue queue_;
  StringWriter writer_;
  char input_[512];
  std::size_t used_ = 0;
  bool input_closed_ = false;
  bool closing_ = false;
  bool closed_ = false;
  bool aborted_ = false;
};

}  // namespace sluice::test
