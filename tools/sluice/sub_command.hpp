// Owns: `sluice sub URL`: subscribes over SSE (http://) or WebSocket
// (ws://), prints each event as one line as it arrives, and keeps going
// across reconnections, resuming from the last id, until Ctrl-C.
#pragma once

#include <cstdint>
#include <string>

namespace sluice::cli {

struct SubOptions {
  std::string url;
  bool json = false;          // JSON lines instead of "ID EVENT DATA"
  bool latest = false;        // keep only the newest unread event per topic
  std::string last_id;        // resume after this id
  std::string policy;         // ws:// only: the server's slow-consumer policy
  std::uint32_t max_attempts = 0;  // consecutive failed connections before giving up; 0: never
};

// Exit status: 0 after Ctrl-C, 1 after a fatal error (one line on stderr),
// 2 for a URL it cannot use.
int run_sub(const SubOptions& options);

}  // namespace sluice::cli
