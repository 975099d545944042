// sluice-bench: a load generator and measurement tool for push servers, in
// the spirit of h2load and iperf3. One subcommand per scenario; see
// docs/BENCHMARKS.md for what each measures and the figures it gave.
#include <CLI/CLI.hpp>
#include <csignal>

#include "scenarios.hpp"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"sluice-bench: reproducible push-server benchmarks (SSE and WebSocket), side by side with peers and the limit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sluice-bench " SLUICE_VERSION, "print the version and exit");
  int exit_code = 0;
  sluice::bench::add_fanout(app, exit_code);
  sluice::bench::add_burst(app, exit_code);
  sluice::bench::add_slow_consumer(app, exit_code);
  sluice::bench::add_pool_pressure(app, exit_code);
  sluice::bench::add_bulk(app, exit_code);
  sluice::bench::add_link(app, exit_code);
  sluice::bench::add_concurrent_send(app, exit_code);
  sluice::bench::add_client_ceiling(app, exit_code);
  sluice::bench::add_connections(app, exit_code);
  sluice::bench::add_hostile_memory(app, exit_code);
  sluice::bench::add_cluster(app, exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
