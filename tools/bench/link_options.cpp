#include "link_options.hpp"

#include <charconv>
#include <cstdio>

namespace sluice::bench {

namespace {

// Splits "12.5mbit" into 12.5 and "mbit". False when there is no number.
bool split_number(std::string_view text, double& value, std::string_view& unit) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || value < 0) return false;
  unit = text.substr(static_cast<std::size_t>(end - text.data()));
  return true;
}

double scale_of(char prefix) {
  switch (prefix | 0x20) {
    case 'k': return 1e3;
    case 'm': return 1e6;
    case 'g': return 1e9;
    default: return 0;
  }
}

bool parse_rate(std::string_view text, double& bytes_per_s) {
  double value = 0;
  std::string_view unit;
  if (!split_number(text, value, unit)) return false;
  double scale = 1;
  if (unit.size() > 1 && scale_of(unit[0]) > 0) {
    scale = scale_of(unit[0]);
    unit.remove_prefix(1);
  }
  if (unit == "bit") return bytes_per_s = value * scale / 8, true;
  if (unit == "B") return bytes_per_s = value * scale, true;
  return false;
}

bool parse_delay(std::string_view text, std::uint64_t& ns) {
  double value = 0;
  std::string_view unit;
  if (!split_number(text, value, unit)) return false;
  const double scale = unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : 0;
  ns = static_cast<std::uint64_t>(value * scale);
  return scale > 0;
}

bool parse_size(std::string_view text, std::size_t& bytes) {
  double value = 0;
  std::string_view unit;
  if (!split_number(text, value, unit)) return false;
  const double scale = unit.empty() ? 1 : unit == "k" ? 1024 : unit == "m" ? 1024 * 1024 : 0;
  bytes = static_cast<std::size_t>(value * scale);
  return scale > 0 && bytes > 0;
}

bool take_item(std::string_view item, LinkOptions& out) {
  const std::size_t eq = item.find('=');
  if (eq == std::string_view::npos) return false;
  const std::string_view key = item.substr(0, eq);
  const std::string_view value = item.substr(eq + 1);
  if (key == "rate") return parse_rate(value, out.rate);
  if (key == "delay") return parse_delay(value, out.delay_ns);
  if (key == "window") return parse_size(value, out.window);
  if (key == "client") return (value == "shallow" || value == "deep") && (out.shallow = value == "shallow", true);
  if (key == "mode") {
    if (value != "proxy" && value != "packet") return false;
    out.mode = value == "packet" ? LinkMode::packet : LinkMode::proxy;
    return true;
  }
  if (key == "queue") return parse_size(value, out.queue);
  return false;
}

}  // namespace

std::string parse_link(std::string_view spec, LinkOptions& out) {
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    const std::string_view item = spec.substr(0, comma);
    if (!take_item(item, out)) {
      return "bad link item '" + std::string(item) +
             "' (want rate=3mbit, delay=20ms, window=5760, client=shallow, mode=proxy|packet or queue=64k)";
    }
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
  }
  if (out.mode == LinkMode::packet && (out.window != 0 || out.shallow)) {
    return "window= and client= shape the TCP proxy; the packet link's windows are TCP's own (want queue=)";
  }
  if (out.mode == LinkMode::proxy && out.queue != 0) return "queue= is the packet link's (want mode=packet)";
  return "";
}

std::string describe_link(const LinkOptions& link) {
  char text[160];
  if (link.mode == LinkMode::packet) {
    std::snprintf(text, sizeof text, "%.2f Mbit/s, %.1f ms one way, queue %zu B, packet link (TCP end to end)",
                  link.rate * 8 / 1e6, static_cast<double>(link.delay_ns) / 1e6,
                  link.queue == 0 ? kDefaultLinkQueue : link.queue);
    return text;
  }
  std::snprintf(text, sizeof text, "%.2f Mbit/s, %.1f ms one way, window %zu B%s",
                link.rate * 8 / 1e6, static_cast<double>(link.delay_ns) / 1e6,
                link.window == 0 ? kDefaultLinkWindow : link.window,
                link.shallow ? ", shallow client side, TCP proxy" : ", TCP proxy");
  return text;
}

}  // namespace sluice::bench
