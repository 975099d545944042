// Owns: `sluice pub URL`: publishes each line of standard input as one
// event, one POST per line on a kept-alive connection. With --token or
// --token-file each POST carries the token as a bearer token; the file is
// read again for each line, so a renewed file is used from the next one.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace sluice::cli {

struct PubOptions {
  std::string url;
  bool verbose = false;                      // print each event's id
  std::size_t max_line = std::size_t{1} << 20;  // longer lines are an error
  std::chrono::milliseconds timeout{10000};  // per request
  int busy_retries = 5;                      // 503s waited out (Retry-After) per line
  std::string ca_file;                       // https://: CAs to trust instead of the system's
  bool insecure = false;                     // https://: check no certificate (tests only)
  std::string token;                         // the bearer token itself
  std::string token_file;                    // or the file holding it, read for each line
};

// Exit status: 0 when every line was published, 1 at the first line that
// could not be (one line on stderr), 2 for a URL it cannot use, 130 after
// Ctrl-C.
int run_pub(const PubOptions& options);

}  // namespace sluice::cli
