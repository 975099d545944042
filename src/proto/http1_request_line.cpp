#include "http1_request_line.hpp"

#include "http1_syntax.hpp"

namespace sluice::proto::http1::detail {
namespace {

RequestLine reject_request_line(int status, const char* reason) {
  RequestLine line;
  line.http_status = status;
  line.reason = reason;
  return line;
}

// Any visible ASCII. Stricter RFC 3986 checks are left to url:: because
// browsers send some characters unescaped in queries (| ^ { }).
bool is_target_char(char c) { return c > 0x20 && c < 0x7f; }

bool is_valid_target(std::string_view target, Method method) {
  if (target.empty()) return false;
  for (char c : target) {
    if (!is_target_char(c)) return false;
  }
  return target.front() == '/' || (target == "*" && method == Method::options);
}

// The length of an absolute-form target's "http://" or "https://" (scheme
// names are case-insensitive), 0 when it has neither.
std::size_t scheme_length(std::string_view target) {
  if (target.size() > 7 && iequals(target.substr(0, 7), "http://")) return 7;
  if (target.size() > 8 && iequals(target.substr(0, 8), "https://")) return 8;
  return 0;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// HTTP-version = "HTTP" "/" DIGIT "." DIGIT, case-sensitive.
bool is_version_syntax(std::string_view v) {
  return v.size() == 8 && v.substr(0, 5) == "HTTP/" && is_digit(v[5]) && v[6] == '.' &&
         is_digit(v[7]);
}

}  // namespace

Method method_from_text(std::string_view text) {
  if (text == "GET") return Method::get;
  if (text == "HEAD") return Method::head;
  if (text == "POST") return Method::post;
  if (text == "PUT") return Method::put;
  if (text == "DELETE") return Method::del;
  if (text == "OPTIONS") return Method::options;
  return Method::other;
}

bool plausible_request_line_start(std::string_view partial) {
  const std::size_t sp = partial.find(' ');
  if (sp == 0) return false;
  for (char c : partial.substr(0, sp)) {
    if (!is_tchar(c)) return false;
  }
  return true;
}

RequestLine parse_request_line(std::string_view line) {
  const std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return reject_request_line(400, "malformed request line");
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return reject_request_line(400, "malformed request line");
  const std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return reject_request_line(400, "method is not a token");
  RequestLine out;
  out.method = method_from_text(method);
  // absolute-form (RFC 9112 3.2.2), which a server must accept: its
  // authority stands for Host, and its path is the target. One without a
  // path, or naming a user (userinfo, which http URIs must not carry), is
  // refused.
  std::size_t target_begin = sp1 + 1;
  if (const std::size_t scheme = scheme_length(target); scheme > 0) {
    const std::size_t slash = target.find('/', scheme);
    const std::string_view authority = target.substr(scheme, slash == std::string_view::npos ? 0 : slash - scheme);
    if (authority.empty() || authority.find_first_of("@?#") != std::string_view::npos) {
      return reject_request_line(400, "absolute-form request target without a host and path");
    }
    out.authority_begin = target_begin + scheme;
    out.authority_length = authority.size();
    target_begin += slash;
    target.remove_prefix(slash);
  }
  if (!is_valid_target(target, out.method)) return reject_request_line(400, "request target not in origin-form");
  if (!is_version_syntax(version)) return reject_request_line(400, "malformed HTTP version");
  if (version[5] != '1' || version[7] > '1') return reject_request_line(505, "HTTP version not supported");
  out.method_length = sp1;
  out.target_begin = target_begin;
  out.target_length = target.size();
  out.version_minor = version[7] - '0';
  return out;
}

}  // namespace sluice::proto::http1::detail
