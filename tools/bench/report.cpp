#include "report.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

namespace sluice::bench {

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string cell(const nlohmann::json& result, const Column& column) {
  const auto it = result.find(column.key);
  if (it != result.end() && it->is_boolean()) return it->get<bool>() ? "yes" : "no";
  if (it == result.end() || !it->is_number()) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", column.decimals, it->get<double>() / column.scale);
  return text;
}

void append_padded(std::string& line, const std::string& text, std::size_t width) {
  line.append(width > text.size() ? width - text.size() : 0, ' ');
  line += text;
  line += "  ";
}

}  // namespace

nlohmann::json describe_machine() {
  utsname name{};
  ::uname(&name);
  return {{"cores", std::thread::hardware_concurrency()}, {"cpu", cpu_model()},
          {"kernel", std::string(name.sysname) + " " + name.release}};
}

namespace {

// `key` of the result named `limit`; 0 when absent.
double limit_value(const nlohmann::json& results, const std::string& limit, const std::string& key) {
  for (const auto& r : results) {
    if (r.value("server", "") == limit && r.contains(key) && r[key].is_number()) return r[key].get<double>();
  }
  return 0;
}

void add_ratio(nlohmann::json& results, const std::string& key, double base, bool higher_is_better,
               const std::string& ratio_key) {
  if (base <= 0) return;
  for (auto& r : results) {
    if (!r.contains(key) || !r[key].is_number()) continue;
    const double value = r[key].get<double>();
    r[ratio_key] = higher_is_better ? value / base : (value > 0 ? base / value : 0);
  }
}

}  // namespace

void add_ratios(const ReportSpec& spec, const std::string& limit, nlohmann::json& results) {
  add_ratio(results, spec.headline, limit_value(results, limit, spec.headline), spec.higher_is_better, "vs_limit");
  if (!spec.cost.empty()) add_ratio(results, spec.cost, limit_value(results, limit, spec.cost), false, "cost_vs_limit");
}

std::string format_table(const ReportSpec& spec, const nlohmann::json& results) {
  std::vector<Column> columns = spec.columns;
  columns.push_back({"vs_limit", "vs limit", 1, 3});
  if (!spec.cost.empty()) columns.push_back({"cost_vs_limit", "cpu vs limit", 1, 3});
  // As wide as the longest name (a server's @TRANSPORT makes them long).
  std::size_t name_width = 12;
  for (const auto& r : results) name_width = std::max(name_width, r.value("server", "?").size());
  std::string out;
  append_padded(out, "server", name_width);
  for (const Column& c : columns) append_padded(out, c.header, std::max<std::size_t>(c.header.size(), 10));
  out += "\n";
  for (const auto& r : results) {
    std::string line;
    append_padded(line, r.value("server", "?"), name_width);
    for (const Column& c : columns) append_padded(line, cell(r, c), std::max<std::size_t>(c.header.size(), 10));
    if (r.contains("error")) line += "error: " + r["error"].get<std::string>();
    out += line + "\n";
  }
  return out;
}

}  // namespace sluice::bench
