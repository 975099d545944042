// The text format's escaping rules: in HELP, backslash and newline are
// escaped; in a label value, backslash, double quote and newline. Nothing
// else is, so any byte string survives (Prometheus reads the text as UTF-8).
#include "metrics/exposition.hpp"

#include <charconv>
#include <cmath>

namespace sluice::metrics {

namespace {

std::string_view type_name(Type type) {
  switch (type) {
    case Type::counter:
      return "counter";
    case Type::gauge:
      return "gauge";
    case Type::histogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

void Exposition::family(std::string_view name, Type type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  for (const char c : help) {
    if (c == '\\') {
      out_ += "\\\\";
    } else if (c == '\n') {
      out_ += "\\n";
    } else {
      out_ += c;
    }
  }
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type_name(type);
  out_ += '\n';
}

void Exposition::histogram(std::string_view name, std::initializer_list<Label> labels,
                           std::span<const std::uint64_t> bounds, std::span<const std::uint64_t> buckets,
                           std::uint64_t sum, double divisor) {
  std::uint64_t running = 0;
  std::string le;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    running += buckets[i];
    le.clear();
    if (i < bounds.size()) {
      Exposition(le).append_scaled(bounds[i], divisor);
    } else {
      le = "+Inf";
    }
    begin_sample(name, "_bucket", labels, le);
    append_unsigned(running);
    out_ += '\n';
  }
  begin_sample(name, "_sum", labels, {});
  append_scaled(sum, divisor);
  out_ += '\n';
  begin_sample(name, "_count", labels, {});
  append_unsigned(running);
  out_ += '\n';
}

void Exposition::begin_sample(std::string_view name, std::string_view suffix, std::initializer_list<Label> labels,
                              std::string_view le) {
  out_ += name;
  out_ += suffix;
  if (labels.size() == 0 && le.empty()) {
    out_ += ' ';
    return;
  }
  char separator = '{';
  for (const Label& label : labels) {
    out_ += separator;
    out_ += label.name;
    out_ += "=\"";
    append_label_value(label.value);
    out_ += '"';
    separator = ',';
  }
  if (!le.empty()) {
    out_ += separator;
    out_ += "le=\"";
    out_ += le;
    out_ += '"';
  }
  out_ += "} ";
}

void Exposition::append_label_value(std::string_view value) {
  for (const char c : value) {
    if (c == '\\') {
      out_ += "\\\\";
    } else if (c == '"') {
      out_ += "\\\"";
    } else if (c == '\n') {
      out_ += "\\n";
    } else {
      out_ += c;
    }
  }
}

void Exposition::append_unsigned(std::uint64_t value) {
  char text[24];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  out_.append(text, end);
}

void Exposition::append_signed(std::int64_t value) {
  char text[24];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  out_.append(text, end);
}

void Exposition::append_double(double value) {
  if (std::isnan(value)) {
    out_ += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out_ += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  // Fixed notation: a bucket's `le` must read the same in every scrape
  // ("0.0001", never "1e-04"), since queries select buckets by that text.
  char text[400];  // the longest fixed form of a finite double is ~330 chars
  const auto end = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed).ptr;
  out_.append(text, end);
}

// Divides rather than multiplies by a reciprocal: 250 / 1e6 is exactly the
// double nearest 0.00025 and prints as "0.00025"; 250 * 1e-6 is not.
void Exposition::append_scaled(std::uint64_t value, double divisor) {
  if (divisor == 1) {
    append_unsigned(value);
  } else {
    append_double(static_cast<double>(value) / divisor);
  }
}

}  // namespace sluice::metrics
