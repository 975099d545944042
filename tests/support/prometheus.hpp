// Owns: Prometheus, a real Prometheus server (Debian's /usr/bin/prometheus,
// PROMETHEUS in the environment names another) that a test starts on a free
// loopback port, scraping one target, with its configuration and database
// in a temporary directory that goes when it does.
//
//   Prometheus prometheus(target_port);
//   ASSERT_TRUE(prometheus.started()) << prometheus.log();
//   ASSERT_TRUE(prometheus.wait_target_up(30s));
//   auto value = prometheus.wait_for_value("sluice_events_published_total", 7, 30s);
//
// Every wait asks Prometheus's HTTP API (/api/v1/targets, /api/v1/query)
// again until the answer is the one wanted or the deadline passes.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "child_process.hpp"

namespace sluice::test {

class Prometheus {
 public:
  // Scrapes http://127.0.0.1:`target_port``metrics_path` every `interval`.
  explicit Prometheus(std::uint16_t target_port, const std::string& metrics_path = "/metrics",
                      std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~Prometheus();  // stops it and removes its directory
  Prometheus(const Prometheus&) = delete;
  Prometheus& operator=(const Prometheus&) = delete;

  // True once it said it is ready for web requests.
  [[nodiscard]] bool started() const { return port_ != 0; }
  [[nodiscard]] std::uint16_t port() const { return port_; }
  // What it logged so far (for a failure message).
  [[nodiscard]] std::string log() const;

  // Waits until /api/v1/targets reports the target's health "up": it has
  // been scraped at least once and the exposition parsed.
  bool wait_target_up(std::chrono::milliseconds limit);
  // The value of an instant query whose result is one sample, or nullopt
  // (no sample, several, an error).
  std::optional<double> query(const std::string& promql);
  // Queries until the value is `expected`; returns the last value seen.
  std::optional<double> wait_for_value(const std::string& promql, double expected, std::chrono::milliseconds limit);
  // The last error a query or target lookup reported, for failure messages.
  [[nodiscard]] const std::string& last_error() const { return last_error_; }

 private:
  bool start(std::uint16_t port);
  std::optional<std::string> api_get(const std::string& target);

  std::filesystem::path dir_;
  std::unique_ptr<ChildProcess> process_;
  std::uint16_t port_ = 0;
  std::string log_;
  std::string last_error_;
};

}  // namespace sluice::test
