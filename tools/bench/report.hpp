// Owns: what a scenario run prints: the machine it ran on, the human table
// (one row per server, with each headline figure as a ratio to the limit
// server), and the JSON document behind both.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sluice::bench {

struct Column {
  std::string key;     // a number in each server's result
  std::string header;
  double scale = 1;    // the table shows value / scale
  int decimals = 1;
};

struct ReportSpec {
  std::string scenario;
  std::string headline;             // the figure compared between servers
  bool higher_is_better = true;
  std::vector<Column> columns;
  // Optional: a cost per unit of work, lower is better (server CPU ns per
  // event), also compared with the limit server's as "cost_vs_limit".
  std::string cost;
};

// Cores, CPU model and kernel, for the JSON and the docs.
[[nodiscard]] nlohmann::json describe_machine();

// Adds "vs_limit" (headline / the limit server's headline) to each result
// when a result named `limit` is present, and "cost_vs_limit" (the limit's
// cost / this cost) when the spec names a cost.
void add_ratios(const ReportSpec& spec, const std::string& limit, nlohmann::json& results);

// The table, one row per result: name, the columns, and vs_limit.
[[nodiscard]] std::string format_table(const ReportSpec& spec, const nlohmann::json& results);

}  // namespace sluice::bench
