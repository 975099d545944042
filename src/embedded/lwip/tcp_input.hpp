// Owns: TcpInput, what lwIP's tcp_recv delivers, in the caller's buffer
// until the application has read it.
//
// lwIP's receive window is the bound: it shrinks by every byte delivered
// and opens again only as the application consumes them (tcp_recved), so a
// peer can never have more than TCP_WND bytes waiting, however slowly the
// application reads. Bytes that do not fit the buffer stay in the pbuf
// chain lwIP handed over and move in as the buffer empties; while one chain
// waits, the next is refused, and lwIP keeps it (its refused data) until
// tcp_process_refused_data offers it again.
#pragma once

#include <lwip/pbuf.h>

#include <cstddef>
#include <span>
#include <string_view>

namespace sluice::embedded::lwip {

class TcpInput {
 public:
  explicit TcpInput(std::span<char> buffer) : buffer_(buffer) {}
  ~TcpInput();
  TcpInput(const TcpInput&) = delete;
  TcpInput& operator=(const TcpInput&) = delete;

  // Takes ownership of a chain from tcp_recv and moves in what fits; false,
  // taking nothing, while an earlier chain still waits (tcp_recv then
  // answers ERR_MEM and lwIP keeps the chain).
  [[nodiscard]] bool received(pbuf* chain);

  // The bytes not yet consumed, oldest first.
  [[nodiscard]] std::string_view bytes() const { return {buffer_.data(), used_}; }

  // Drops the first `n` bytes of bytes() (n <= bytes().size()) and moves in
  // what waits. Returns `n`, the bytes to acknowledge with tcp_recved.
  std::size_t consume(std::size_t n);

  // Bytes of the taken chain not in the buffer yet.
  [[nodiscard]] std::size_t waiting() const;

 private:
  void move_in();

  std::span<char> buffer_;
  std::size_t used_ = 0;
  pbuf* waiting_ = nullptr;      // chain not yet (fully) in the buffer
  std::size_t waiting_offset_ = 0;  // bytes of waiting_ already moved in
};

}  // namespace sluice::embedded::lwip
