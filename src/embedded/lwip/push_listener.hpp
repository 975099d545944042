// Owns: PushSlot, one connection of the embedded push server on lwIP's raw
// API (its TcpConnection and all the memory it needs, in one object), and
// PushListener, which accepts on a listening pcb into a free slot.
//
// The application makes the slots at start-up (a static array) and hands
// them to the listener: a connection arriving when every slot is taken is
// refused at once with a reset, so the number of slots bounds the
// connections, and nothing is allocated per connection. A slot's memory is
// its input buffer (a request head must fit in it), its queue's ring slots
// and the connection's state; the pool, and the writer's scratch buffer
// that every slot shares, are the application's, once.
//
// Writes copy (TCP_WRITE_FLAG_COPY): lwIP takes the bytes at tcp_write and
// each pool block goes back at once, instead of staying held until the
// peer acknowledges it. With a pool of tens of blocks, blocks held for a
// round trip by one slow peer would be blocks no one else can have.
#pragma once

#include <lwip/tcp.h>

#include <cstddef>
#include <optional>
#include <span>

#include "embedded/link.hpp"
#include "embedded/push_connection.hpp"
#include "embedded/push_server.hpp"
#include "embedded/lwip/tcp_connection.hpp"

namespace sluice::embedded::lwip {

inline constexpr std::size_t kSlotInputBytes = 512;   // the largest request head taken
inline constexpr std::size_t kSlotControlFrames = 4;  // answer, pong, close, notice
inline constexpr std::size_t kSlotDataFrames = 16;    // events queued per subscriber

class PushListener;

class PushSlot final : public embedded::Link, public TcpConnection::Handler {
 public:
  PushSlot() = default;
  PushSlot(const PushSlot&) = delete;
  PushSlot& operator=(const PushSlot&) = delete;

  // Link
  conn::OutQueue& out() override { return tcp_->out(); }
  [[nodiscard]] std::string_view input() const override { return tcp_->input(); }
  [[nodiscard]] std::size_t input_capacity() const override { return sizeof input_; }
  void consume(std::size_t n) override { tcp_->consume(n); }
  [[nodiscard]] bool input_closed() const override { return tcp_->input_closed(); }
  void flush() override { tcp_->flush(); }
  void close() override { tcp_->close(); }
  void abort() override { tcp_->abort(); }

  // TcpConnection::Handler
  void on_input(TcpConnection& connection) override;
  void on_closed(TcpConnection& connection, err_t reason) override;
  void on_poll(TcpConnection& connection) override;

  [[nodiscard]] bool free() const { return !tcp_ || tcp_->finished(); }
  [[nodiscard]] const embedded::PushConnection& core() const { return core_; }
  [[nodiscard]] const TcpConnection* tcp() const { return tcp_ ? &*tcp_ : nullptr; }

 private:
  friend class PushListener;

  void open(tcp_pcb* pcb, PushListener& listener);

  PushListener* listener_ = nullptr;
  embedded::PushConnection core_;
  conn::QueuedFrame control_[kSlotControlFrames];
  conn::QueuedFrame data_[kSlotDataFrames];
  char input_[kSlotInputBytes];
  std::optional<TcpConnection> tcp_;
};

class PushListener {
 public:
  // Listens with `pcb` (bound, not yet listening; the listener takes it
  // over). `slots` and `scratch` (the writer's gathering buffer, TCP_MSS
  // bytes will do) are the caller's and outlive the listener. Check ok().
  PushListener(tcp_pcb* pcb, embedded::PushServer& server, std::span<PushSlot> slots, std::span<char> scratch,
               const TcpConnectionLimits& limits = {});
  // Stops listening; connections still open are reset.
  ~PushListener();
  PushListener(const PushListener&) = delete;
  PushListener& operator=(const PushListener&) = delete;

  [[nodiscard]] bool ok() const { return pcb_ != nullptr; }
  [[nodiscard]] embedded::PushServer& server() { return server_; }
  // Connections refused because every slot was taken.
  [[nodiscard]] std::uint64_t refused() const { return refused_; }

 private:
  friend class PushSlot;

  static err_t on_accept(void* arg, tcp_pcb* pcb, err_t err);

  tcp_pcb* pcb_ = nullptr;
  embedded::PushServer& server_;
  std::span<PushSlot> slots_;
  std::span<char> scratch_;
  TcpConnectionLimits limits_;
  std::uint64_t refused_ = 0;
};

}  // namespace sluice::embedded::lwip
