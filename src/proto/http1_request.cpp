#include "http1_syntax.hpp"
#include "proto/http1.hpp"

namespace sluice::proto::http1 {

std::string_view Request::header(std::string_view name) const {
  for (const Header& h : headers) {
    if (detail::iequals(h.name, name)) return h.value;
  }
  return {};
}

bool Request::has_header(std::string_view name) const {
  for (const Header& h : headers) {
    if (detail::iequals(h.name, name)) return true;
  }
  return false;
}

std::size_t Request::header_count(std::string_view name) const {
  std::size_t count = 0;
  for (const Header& h : headers) count += detail::iequals(h.name, name) ? 1 : 0;
  return count;
}

std::size_t FieldLines::line_from(std::size_t from) const {
  if (name_.empty()) return from == 0 && !value_.empty() ? 0 : 1;
  while (from < headers_.size() && !detail::iequals(headers_[from].name, name_)) ++from;
  return from;
}

bool Request::expects_continue() const { return detail::iequals(header("Expect"), "100-continue"); }

bool is_token(std::string_view text) { return detail::is_token(text); }

const char* status_reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 421:
      return "Misdirected Request";
    case 426:
      return "Upgrade Required";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

}  // namespace sluice::proto::http1
