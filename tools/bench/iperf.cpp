#include "iperf.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "free_port.hpp"
#include "server_process.hpp"

namespace sluice::bench {

namespace {

std::string read_all(FILE* pipe) {
  std::string out;
  char chunk[4096];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;) out.append(chunk, n);
  return out;
}

}  // namespace

IperfResult run_iperf3(double seconds) {
  const std::uint16_t port = free_port();
  if (port == 0) return {0, "no free port"};
  const std::string p = std::to_string(port);
  // iperf3 prints no banner of its own; the echo gives ServerProcess one once
  // the server has been started in the same shell.
  ServerProcess server;
  const std::string error = server.start("sh -c 'iperf3 -s -1 -B 127.0.0.1 -p " + p +
                                         " >/dev/null 2>&1 & sleep 0.3; echo listening on 127.0.0.1:" + p + "; wait'");
  if (!error.empty()) return {0, "iperf3 server: " + error};
  const std::string command = "iperf3 -c 127.0.0.1 -p " + p + " -t " + std::to_string(seconds) + " -J 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {0, "cannot run iperf3"};
  const std::string output = read_all(pipe);
  ::pclose(pipe);
  const nlohmann::json report = nlohmann::json::parse(output, nullptr, false);
  if (report.is_discarded() || !report.contains("end")) return {0, "iperf3 gave no report (is it installed?)"};
  return {report["end"]["sum_received"]["bits_per_second"].get<double>() / 8, ""};
}

}  // namespace sluice::bench
