// Owns: Exposition, a writer of the Prometheus text exposition format
// (version 0.0.4): a `# HELP` and `# TYPE` line per family, then one line
// per sample, label values escaped, histograms as running `_bucket` counts
// with `le`, `_sum` and `_count`.
//
//   std::string text;
//   metrics::Exposition out(text);
//   out.family("sluice_events_dropped_total", metrics::Type::counter, "Events a policy dropped.");
//   out.sample("sluice_events_dropped_total", {{"policy", "latest"}}, std::uint64_t{3});
//
// It only appends to a string: it runs at scrape time, where allocating is
// fine, never on a loop's event path.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace sluice::metrics {

// The Content-Type of a scrape reply in this format.
inline constexpr std::string_view kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

enum class Type : std::uint8_t { counter, gauge, histogram };

struct Label {
  std::string_view name;
  std::string_view value;  // escaped on output: any bytes may be given
};

class Exposition {
 public:
  explicit Exposition(std::string& out) : out_(out) {}

  // Starts a family: its HELP (escaped) and TYPE lines. Samples of the
  // family follow; a family's name appears once per exposition.
  void family(std::string_view name, Type type, std::string_view help);

  // One sample line. Integers are written exactly, doubles in the shortest
  // fixed notation that reads back to the same value.
  template <class T>
    requires std::integral<T> || std::floating_point<T>
  void sample(std::string_view name, std::initializer_list<Label> labels, T value) {
    begin_sample(name, {}, labels, {});
    if constexpr (std::floating_point<T>) {
      append_double(static_cast<double>(value));
    } else if constexpr (std::signed_integral<T>) {
      append_signed(value);
    } else {
      append_unsigned(value);
    }
    out_ += '\n';
  }

  // A histogram's samples: name_bucket for each bound and +Inf (running
  // counts), name_sum, name_count. `buckets` holds one count per bucket
  // (not running), one more than `bounds`. Bounds and the sum are divided
  // by `divisor` on output, so a histogram kept in microseconds is exposed
  // in seconds with divisor 1e6.
  void histogram(std::string_view name, std::initializer_list<Label> labels, std::span<const std::uint64_t> bounds,
                 std::span<const std::uint64_t> buckets, std::uint64_t sum, double divisor = 1);

 private:
  void begin_sample(std::string_view name, std::string_view suffix, std::initializer_list<Label> labels,
                    std::string_view le);
  void append_label_value(std::string_view value);
  void append_unsigned(std::uint64_t value);
  void append_signed(std::int64_t value);
  void append_double(double value);
  void append_scaled(std::uint64_t value, double divisor);

  std::string& out_;
};

}  // namespace sluice::metrics
