// Owns: the small URL helpers routes need on a request target's path and
// query: percent-decoding, and iterators over query pairs and path segments.
// Nothing here allocates; every view points into the caller's string.
#pragma once

#include <cstddef>
#include <string_view>

namespace sluice::proto::url {

// Percent-decodes `in` into `out`, which has room for `out_cap` bytes (`out`
// may be null when `out_cap` is 0). With `plus_as_space`, '+' becomes ' ' (for
// query keys and values; in a path '+' is itself).
// Returns the decoded length, or -1 when a '%' is not followed by two hex
// digits or the result does not fit in `out_cap` (`out` then holds a partial
// result). The result may hold any byte, NUL and '/' included.
[[nodiscard]] long percent_decode(std::string_view in, char* out, std::size_t out_cap,
                                  bool plus_as_space);

// Iterates the raw key=value pairs of a query string, "a=1&b&c=%20" giving
// ("a","1"), ("b",""), ("c","%20"). Empty pairs ("a=1&&b") are skipped; the
// first '=' splits a pair. Keys and values are not decoded. The views point
// into the string given to the constructor, which must outlive them.
class QueryIterator {
 public:
  explicit QueryIterator(std::string_view query) : rest_(query) {}

  // Stores the next pair and returns true, or returns false at the end.
  [[nodiscard]] bool next(std::string_view& raw_key, std::string_view& raw_value);

 private:
  std::string_view rest_;
};

// Iterates the raw segments of an absolute path: "/sse/news" gives "sse",
// "news"; "/" gives none; one trailing slash is ignored ("/a/" gives "a").
// A path that does not start with '/', or has an empty segment ("/a//b") or
// a dot segment (".", "..", or the same spelt with %2e), is rejected, so that
// no route is reached by a path that is not already in canonical form.
// Segments are not decoded; the views point into the string given to the
// constructor, which must outlive them.
class PathIterator {
 public:
  explicit PathIterator(std::string_view path);

  // Stores the next segment and returns true, or returns false at the end or
  // on a rejected path (see failed()).
  [[nodiscard]] bool next(std::string_view& raw_segment);

  // True when the path is rejected: from the start when it does not begin
  // with '/', otherwise once next() has reached the bad segment.
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  std::string_view rest_;  // after the '/' that ends the last segment
  bool failed_ = false;
};

}  // namespace sluice::proto::url
