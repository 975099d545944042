#include "pub_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "ca_file.hpp"
#include "event_line.hpp"
#include "interrupt.hpp"
#include "line_reader.hpp"
#include "token_file.hpp"
#include "sluice/client/publisher.hpp"

namespace sluice::cli {

namespace {

using client::ErrorKind;
using client::PublishResult;

constexpr int kInterruptedStatus = 130;

// The longest Retry-After waited out, as `sub` caps its reconnection: a
// server (or a proxy) that asks for an hour, five times over, would
// otherwise hold a line for five hours.
constexpr std::chrono::milliseconds kLongestBusyWait{30000};

// Waits out a 503's Retry-After, in steps so that Ctrl-C ends the wait.
bool wait_retry_after(std::chrono::milliseconds delay) {
  const auto deadline = std::chrono::steady_clock::now() + delay;
  while (!interrupted() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !interrupted();
}

// Each 503 waited out is said on standard error with the server's reason,
// so a publisher held up by the server is not taken for a hung one.
PublishResult publish_line(client::Publisher& publisher, const std::string& line, std::size_t number,
                           const PubOptions& options) {
  PublishResult result = publisher.publish(line);
  for (int retry = 0; retry < options.busy_retries && result.status == 503; ++retry) {
    const auto pause = std::clamp(result.retry_after, std::chrono::milliseconds(100), kLongestBusyWait);
    std::fprintf(stderr, "sluice: line %zu: %s; trying again in %lld ms (%d of %d)\n", number,
                 result.error.message.c_str(), static_cast<long long>(pause.count()), retry + 1,
                 options.busy_retries);
    if (!wait_retry_after(pause)) break;
    result = publisher.publish(line);
  }
  return result;
}

int fail(std::size_t line_number, const std::string& message) {
  std::fprintf(stderr, "sluice: line %zu: %s\n", line_number, message.c_str());
  return 1;
}

client::PublisherOptions publisher_options(const PubOptions& options) {
  client::PublisherOptions o{.timeout = options.timeout,
                             .tls = {.ca_file = options.ca_file, .insecure = options.insecure},
                             .interrupt = interrupt_flag()};
  if (!options.token_file.empty()) {
    o.token = [path = options.token_file] { return read_token_file(path); };
  } else if (!options.token.empty()) {
    o.token = [token = options.token] { return token; };
  }
  return o;
}

}  // namespace

int run_pub(const PubOptions& options) {
  if (!options.token_file.empty()) {
    if (const auto problem = token_file_problem(options.token_file)) {
      std::fprintf(stderr, "sluice: --token-file: %s\n", problem->c_str());
      return 2;
    }
  }
  if (const auto problem = ca_file_problem(options.ca_file)) {
    std::fprintf(stderr, "sluice: --cacert: %s\n", problem->c_str());
    return 2;
  }
  client::Publisher publisher(publisher_options(options));
  if (const client::ClientError e = publisher.open(options.url); e.kind != ErrorKind::none) {
    std::fprintf(stderr, "sluice: %s\n", e.message.c_str());
    return 2;
  }
  LineReader reader(STDIN_FILENO, options.max_line);
  std::string line;
  for (std::size_t number = 1;; ++number) {
    switch (reader.next(line)) {
      case LineStatus::end: return 0;
      case LineStatus::interrupted: return kInterruptedStatus;
      case LineStatus::too_long: return fail(number, "longer than " + std::to_string(options.max_line) + " bytes");
      case LineStatus::error: return fail(number, "cannot read standard input");
      case LineStatus::line: break;
    }
    const PublishResult result = publish_line(publisher, line, number, options);
    if (interrupted()) return kInterruptedStatus;
    if (result.error.kind != ErrorKind::none) return fail(number, result.error.message);
    // The id is the server's text: escaped as sub escapes what it prints.
    if (options.verbose) std::printf("%s\n", escaped(result.id).c_str());
    std::fflush(stdout);
  }
}

}  // namespace sluice::cli
