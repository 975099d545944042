// Owns: Output, where log lines go (standard error unless told otherwise),
// written so that a loop that logs never waits for the reader.
//
// Each line is one write of at most PIPE_BUF (4096) bytes, so lines that
// several loops write at once never interleave on a pipe, and a reader that
// stops reading costs a dropped line, never a stalled loop:
//   - a socket (journald's stream under systemd): send() with MSG_DONTWAIT;
//   - a pipe or terminal: the fd is opened again through /proc/self/fd as a
//     description of our own, made non-blocking; setting O_NONBLOCK on the
//     inherited stderr instead would change it for every process sharing it
//     (the shell that started sluiced, say);
//   - a regular file: written directly (the page cache takes it; only a
//     filesystem under memory pressure could make that wait).
// A line the fd would not take now is dropped and counted. Should a socket
// take only part of a line (it does not for journald's Unix socket and a
// line this short), the next line starts with a newline, so the cut line
// never runs into it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace sluice::log {

// A line and the newline that may lead it fit PIPE_BUF (4096 on Linux),
// which a pipe writes whole or not at all.
inline constexpr std::size_t kMaxLineBytes = 4095;

class Output {
 public:
  enum class Mode : std::uint8_t {
    socket,    // send(MSG_DONTWAIT)
    reopened,  // our own non-blocking description of a pipe or terminal
    polled,    // a pipe or terminal we could not open again: poll(POLLOUT, 0) first
    direct,    // a regular file (or anything else): plain write
  };

  // `fd` stays the caller's; Output closes only the fd it opened itself.
  explicit Output(int fd = 2);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Writes `line` (ending in '\n', at most kMaxLineBytes) whole, or drops
  // and counts it. Never blocks on the reader. Thread-safe.
  bool write_line(std::string_view line);

  [[nodiscard]] std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  [[nodiscard]] Mode mode() const { return mode_; }

 private:
  // One attempt; returns bytes written, or -1 (errno set).
  long write_once(std::string_view a, std::string_view b);

  int fd_;
  int own_fd_ = -1;
  Mode mode_ = Mode::direct;
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<bool> torn_{false};  // the last line went out cut short
};

}  // namespace sluice::log
