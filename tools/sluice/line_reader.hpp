// Owns: LineReader, bounded line reading from a file descriptor for
// `sluice pub`: a line longer than the limit is an error, never a buffer
// that grows without end, and Ctrl-C interrupts a blocked read.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sluice::cli {

enum class LineStatus : unsigned char { line, end, too_long, interrupted, error };

class LineReader {
 public:
  LineReader(int fd, std::size_t max_line);

  // The next line without its LF (and without a CR before it). A last line
  // without an LF is a line too.
  LineStatus next(std::string& line);

 private:
  bool fill();

  int fd_;
  std::size_t max_line_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  bool interrupted_ = false;
};

}  // namespace sluice::cli
