// Owns: the two charts the bench writes with --svg, as plain SVG that any
// browser shows: bars (one figure per server, for throughput) and lines (a
// series per server over time, for event age).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sluice::bench {

struct Bar {
  std::string label;
  double value;
};

struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y)
};

[[nodiscard]] std::string bar_chart(const std::string& title, const std::string& unit, const std::vector<Bar>& bars);
[[nodiscard]] std::string line_chart(const std::string& title, const std::string& x_unit, const std::string& y_unit,
                                     const std::vector<Series>& series);

}  // namespace sluice::bench
