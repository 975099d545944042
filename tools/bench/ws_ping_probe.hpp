// Owns: WsPingProbe, the ping→pong probe of pool-pressure: one
// WebSocket on a quiet topic that sends a masked ping and times the pong
// that carries the same payload back. A server whose control frames wait
// behind a saturated data path (or a drained buffer pool) answers late or
// never. The server's own pings are answered; a pong for an earlier,
// timed-out ping is ignored.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "probe.hpp"
#include "io/socket.hpp"
#include "ws_frame_scanner.hpp"

namespace sluice::bench {

class WsPingProbe final : private WsFrameHandler {
 public:
  WsPingProbe(const io::Endpoint& server, std::string path) : server_(server), path_(std::move(path)) {}
  ~WsPingProbe();
  WsPingProbe(const WsPingProbe&) = delete;
  WsPingProbe& operator=(const WsPingProbe&) = delete;

  // Upgrades a new connection. False (see error()) when the server refused.
  bool connect(std::uint64_t timeout_ns);
  // Sends one ping and waits for its pong, `timeout_ns` at most; ns is from
  // the write of the ping to the read of the pong. Reconnects first when the
  // last connection was lost.
  [[nodiscard]] ProbeResult ping(std::uint64_t timeout_ns);

  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  void on_message(bool text, std::string_view payload) override;
  void on_ping(std::string_view payload) override;
  void on_pong(std::string_view payload) override;
  void on_close(std::uint16_t code, std::string_view reason) override;
  bool read_until_pong(std::uint64_t deadline);
  bool take(std::string_view bytes);
  void disconnect(std::string why);

  io::Endpoint server_;
  std::string path_;
  int fd_ = -1;
  WsFrameScanner scanner_;
  std::string expected_;  // payload of the ping in flight
  bool answered_ = false;
  std::string replies_;   // pongs to the server's pings
  std::uint64_t sent_ = 0;
  std::string error_;
};

}  // namespace sluice::bench
