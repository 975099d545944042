// Owns: AckHold, the frames lwIP still reads after tcp_write without
// TCP_WRITE_FLAG_COPY. Such a write hands lwIP a pointer into the frame's
// pool blocks, which it keeps until the peer acknowledges the bytes (it may
// have to send them again), so each frame is held, one reference, from the
// moment its first byte goes to lwIP until tcp_sent has counted past its
// last byte. The ring is the caller's memory and fixed: when it is full the
// writer starts no new frame, and the next acknowledgement makes room.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "buf/frame.hpp"

namespace sluice::embedded::lwip {

class AckHold {
 public:
  struct Slot {
    buf::FrameRef frame;
    std::uint32_t end = 0;  // stream offset just past the frame's last byte
  };

  // `start` numbers the next byte of the stream; the connection's sequence
  // number (snd_lbb) will do, and makes the offsets lwIP's own.
  explicit AckHold(std::span<Slot> slots, std::uint32_t start = 0)
      : slots_(slots), started_end_(start), acked_(start) {}
  ~AckHold() { release_all(); }
  AckHold(const AckHold&) = delete;
  AckHold& operator=(const AckHold&) = delete;

  // Holds `frame`, whose bytes follow those of every frame held before.
  // An empty frame has nothing for lwIP to read and is not held. The caller
  // checks free_slots() first.
  void started(const buf::FrameRef& frame);

  // The peer acknowledged `bytes` more bytes (tcp_sent): releases every
  // frame they complete. Acknowledged bytes past those of the frames held
  // (a FIN's sequence number) change nothing.
  void acked(std::size_t bytes);

  // lwIP let go of the connection (freed after an error, or every byte
  // acknowledged): releases everything.
  void release_all();

  [[nodiscard]] std::size_t held() const { return count_; }
  [[nodiscard]] std::size_t free_slots() const { return slots_.size() - count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }

 private:
  std::span<Slot> slots_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::uint32_t started_end_ = 0;  // offset past the last byte of the frames started
  std::uint32_t acked_ = 0;        // offset past the last acknowledged byte
};

}  // namespace sluice::embedded::lwip
