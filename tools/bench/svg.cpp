#include "svg.hpp"

#include <algorithm>
#include <cstdio>

namespace sluice::bench {

namespace {

constexpr double kWidth = 720;
constexpr double kHeight = 400;
constexpr double kLeft = 90;
constexpr double kTop = 40;
constexpr double kPlotW = kWidth - kLeft - 30;
constexpr double kPlotH = kHeight - kTop - 60;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

std::string number(double v) {
  char text[32];
  if (v >= 1e6) std::snprintf(text, sizeof text, "%.2fM", v / 1e6);
  else if (v >= 1e3) std::snprintf(text, sizeof text, "%.1fk", v / 1e3);
  else std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string text_at(double x, double y, const std::string& text, const char* anchor = "middle") {
  char head[96];
  std::snprintf(head, sizeof head, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
  return head + escape(text) + "</text>\n";
}

std::string header(const std::string& title) {
  char head[256];
  std::snprintf(head, sizeof head,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                kWidth, kHeight);
  return head + text_at(kWidth / 2, 22, title);
}

// Horizontal grid lines with their values, 0..top in 4 steps.
std::string y_axis(double top, const std::string& unit) {
  std::string out;
  for (int i = 0; i <= 4; ++i) {
    const double y = kTop + kPlotH - kPlotH * i / 4;
    char line[160];
    std::snprintf(line, sizeof line, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", kLeft,
                  y, kLeft + kPlotW, y);
    out += line + text_at(kLeft - 6, y + 4, number(top * i / 4), "end");
  }
  return out + text_at(kLeft - 6, kTop - 10, unit, "end");
}

}  // namespace

std::string bar_chart(const std::string& title, const std::string& unit, const std::vector<Bar>& bars) {
  double top = 0;
  for (const Bar& b : bars) top = std::max(top, b.value);
  top = top > 0 ? top * 1.1 : 1;
  std::string out = header(title) + y_axis(top, unit);
  const double slot = kPlotW / static_cast<double>(std::max<std::size_t>(1, bars.size()));
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double h = kPlotH * bars[i].value / top;
    const double x = kLeft + slot * static_cast<double>(i) + slot * 0.15;
    char rect[200];
    std::snprintf(rect, sizeof rect, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x,
                  kTop + kPlotH - h, slot * 0.7, h, kColors[i % 6]);
    out += rect + text_at(x + slot * 0.35, kTop + kPlotH - h - 4, number(bars[i].value));
    out += text_at(x + slot * 0.35, kTop + kPlotH + 18, bars[i].label);
  }
  return out + "</svg>\n";
}

std::string line_chart(const std::string& title, const std::string& x_unit, const std::string& y_unit,
                       const std::vector<Series>& series) {
  double x_top = 0;
  double y_top = 0;
  for (const Series& s : series) {
    for (const auto& [x, y] : s.points) x_top = std::max(x_top, x), y_top = std::max(y_top, y);
  }
  x_top = x_top > 0 ? x_top : 1;
  y_top = y_top > 0 ? y_top * 1.1 : 1;
  std::string out = header(title) + y_axis(y_top, y_unit) + text_at(kLeft + kPlotW / 2, kHeight - 12, x_unit);
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::string path;
    for (const auto& [x, y] : series[i].points) {
      char point[48];
      std::snprintf(point, sizeof point, "%s%.1f,%.1f", path.empty() ? "" : " ", kLeft + kPlotW * x / x_top,
                    kTop + kPlotH - kPlotH * y / y_top);
      path += point;
    }
    out += "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" + std::string(kColors[i % 6]) + "\" points=\"" +
           path + "\"/>\n";
    char legend[128];
    std::snprintf(legend, sizeof legend, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", kLeft + 10,
                  kTop + 16 + 16 * static_cast<double>(i), kColors[i % 6]);
    out += legend + escape(series[i].label) + "</text>\n";
  }
  return out + "</svg>\n";
}

}  // namespace sluice::bench
