// Owns: the list of scenarios, each a subcommand of sluice-bench defined in
// its own scenario_*.cpp, and the function that adds them all.
#pragma once

#include <CLI/CLI.hpp>

namespace sluice::bench {

// Each adds its subcommand; the callback runs the scenario and stores the
// exit code in `exit_code`.
void add_fanout(CLI::App& app, int& exit_code);
void add_burst(CLI::App& app, int& exit_code);
void add_slow_consumer(CLI::App& app, int& exit_code);
void add_pool_pressure(CLI::App& app, int& exit_code);
void add_bulk(CLI::App& app, int& exit_code);
void add_link(CLI::App& app, int& exit_code);
void add_concurrent_send(CLI::App& app, int& exit_code);
void add_client_ceiling(CLI::App& app, int& exit_code);
void add_connections(CLI::App& app, int& exit_code);
void add_hostile_memory(CLI::App& app, int& exit_code);
void add_cluster(CLI::App& app, int& exit_code);

}  // namespace sluice::bench
