// Owns: ReloadedSluiced, the real sluiced (one loop) reading its settings
// from a TOML file a test rewrites before signalling a reload (SIGHUP),
// and the waits such a test makes: for the reload's report, for a
// condition polled with a deadline.
#pragma once

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "child_process.hpp"
#include "sluiced_process.hpp"
#include "test_client.hpp"

namespace sluice::test {

inline std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A file under the test's temporary directory, named for this process.
inline std::string temp_file(const std::string& name) {
  return testing::TempDir() + std::to_string(::getpid()) + "_" + name;
}

class ReloadedSluiced {
 public:
  explicit ReloadedSluiced(const std::string& name, const std::string& toml)
      : path_(temp_file(name + ".toml")) {
    std::ofstream(path_) << toml;
    process_ = std::make_unique<ChildProcess>(std::vector<std::string>{
        env_path("SLUICED"), "--config", path_, "--listen", "127.0.0.1:0", "--set", "threads=1", "--set",
        "pool.prefault=0"});
    if (process_->read_until_contains("\n", 10s)) port_ = listening_port(process_->output());
  }
  ~ReloadedSluiced() {
    process_->signal(SIGKILL);
    (void)process_->wait(10s);
    std::remove(path_.c_str());
  }
  ReloadedSluiced(const ReloadedSluiced&) = delete;
  ReloadedSluiced& operator=(const ReloadedSluiced&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] const std::string& output() const { return process_->output(); }

  // Signals a reload and waits until it is reported ("sluiced: reloaded"
  // once every loop has taken it, or "sluiced: reload failed"); what
  // sluiced wrote since the signal, empty when no report came.
  std::string reload_report() {
    const std::size_t before = process_->output().size();
    process_->signal(SIGHUP);
    const auto reported = [&] {
      const std::string since = process_->output().substr(before);
      return since.find("sluiced: reloaded\n") != std::string::npos ||
             since.find("sluiced: reload failed") != std::string::npos;
    };
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!reported()) {
      if (std::chrono::steady_clock::now() > deadline) return {};
      // A needle never written: reads what comes for 20 ms; `reported` decides.
      (void)process_->read_until_contains(std::string(1, '\0'), 20ms);
    }
    // The failure's line is whole once its newline came.
    (void)process_->read_until_contains(std::string(1, '\0'), 20ms);
    return process_->output().substr(before);
  }

  // Writes `toml` as the whole file, signals a reload and waits until every
  // loop has taken it; true when the reload applied exactly `applied`.
  bool reload(const std::string& toml, const std::string& applied) {
    std::ofstream(path_) << toml;
    const std::string report = reload_report();
    return report.find("sluiced: reloaded\n") != std::string::npos &&
           report.find("sluiced: reload: applied: " + applied + "\n") != std::string::npos;
  }

  // sluice_connection_memory_bytes, read from /metrics.
  std::uint64_t connection_memory() const {
    const HttpReply reply = http_request(port_, "GET", "/metrics");
    const std::string name = "\nsluice_connection_memory_bytes ";
    const std::size_t at = reply.body.find(name);
    return at == std::string::npos ? ~std::uint64_t{0} : std::strtoull(reply.body.c_str() + at + name.size(), nullptr, 10);
  }

 private:
  std::string path_;
  std::unique_ptr<ChildProcess> process_;
  std::uint16_t port_ = 0;
};

}  // namespace sluice::test
