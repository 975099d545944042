// Owns: `sluice sub URL`: subscribes over SSE (http://, https://) or
// WebSocket (ws://, wss://), prints each event as one line as it arrives,
// and keeps going across reconnections, resuming from the last id, until
// Ctrl-C. With --token-file, the token is read from the file whenever one
// is needed: whoever renews the file (a cron job, a sidecar) renews the
// subscription's credentials, and a ws:// subscription refreshes them in
// place before they expire.
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
  std::string ca_file;             // https://, wss://: CAs to trust instead of the system's
  bool insecure = false;           // https://, wss://: check no certificate (tests only)
  bool http1 = false;              // SSE over HTTP/1.1 even when the server offers HTTP/2
  bool http2_prior_knowledge = false;  // SSE over HTTP/2 on http:// too (h2c)
  std::string token_file;              // the bearer token, read again for each connection and refresh
  std::size_t max_event_bytes = std::size_t{1} << 20;  // the largest event taken
};

// Exit status: 0 after Ctrl-C, 1 after a fatal error (one line on stderr),
// 2 for a URL it cannot use.
int run_sub(const SubOptions& options);

}  // namespace sluice::cli
