#include "line_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "interrupt.hpp"

namespace sluice::cli {

LineReader::LineReader(int fd, std::size_t max_line)
    : fd_(fd), max_line_(max_line), buffer_(std::max<std::size_t>(max_line, 4096) + 4096) {}

// Reads more input after what is buffered; false at EOF, on an error or
// after Ctrl-C.
bool LineReader::fill() {
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  while (true) {
    const ssize_t n = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      return true;
    }
    if (n < 0 && errno == EINTR && !interrupted()) continue;
    interrupted_ = n < 0 && errno == EINTR;
    eof_ = n == 0;
    return false;
  }
}

LineStatus LineReader::next(std::string& line) {
  while (true) {
    const char* start = buffer_.data() + begin_;
    const char* lf = static_cast<const char*>(std::memchr(start, '\n', end_ - begin_));
    const std::size_t length = lf != nullptr ? static_cast<std::size_t>(lf - start) : end_ - begin_;
    if (length > max_line_) return LineStatus::too_long;
    const bool last = lf == nullptr && eof_ && length > 0;
    if (lf != nullptr || last) {
      line.assign(start, length);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      begin_ += length + (lf != nullptr ? 1 : 0);
      return LineStatus::line;
    }
    if (eof_) return LineStatus::end;
    if (!fill()) {
      if (interrupted_) return LineStatus::interrupted;
      if (!eof_) return LineStatus::error;
    }
  }
}

}  // namespace sluice::cli
