#include "report.hpp"

#include <sys/utsname.h>

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

void add_ratios(const ReportSpec& spec, const std::string& limit, nlohmann::json& results) {
  double base = 0;
  for (const auto& r : results) {
    if (r.value("server", "") == limit && r.contains(spec.headline)) base = r[spec.headline].get<double>();
  }
  if (base <= 0) return;
  for (auto& r : results) {
    if (!r.contains(spec.headline)) continue;
    const double value = r[spec.headline].get<double>();
    r["vs_limit"] = spec.higher_is_better ? value / base : (value > 0 ? base / value : 0);
  }
}

std::string format_table(const ReportSpec& spec, const nlohmann::json& results) {
  std::vector<Column> columns = spec.columns;
  columns.push_back({"vs_limit", "vs limit", 1, 3});
  std::string out;
  append_padded(out, "server", 12);
  for (const Column& c : columns) append_padded(out, c.header, std::max<std::size_t>(c.header.size(), 10));
  out += "\n";
  for (const auto& r : results) {
    std::string line;
    append_padded(line, r.value("server", "?"), 12);
    for (const Column& c : columns) append_padded(line, cell(r, c), std::max<std::size_t>(c.header.size(), 10));
    if (r.contains("error")) line += "error: " + r["error"].get<std::string>();
    out += line + "\n";
  }
  return out;
}

}  // namespace sluice::bench
