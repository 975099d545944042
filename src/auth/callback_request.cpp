#include "auth/callback_request.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "auth/ascii.hpp"

namespace sluice::auth {

namespace {

bool token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

constexpr std::string_view kNotForwarded[] = {"host",         "content-length", "transfer-encoding", "connection",
                                              "content-type", "cookie",         "upgrade",           "te",
                                              "trailer",      "keep-alive"};

std::string body(const CallbackQuestion& question) {
  return nlohmann::json{
      {"action", action_name(question.action)}, {"topic", question.topic}, {"remote_addr", question.remote_addr}}
      .dump();
}

void append_cookies(std::span<const proto::http1::Header> headers, std::string& out) {
  bool first = true;
  for (const proto::http1::Header& h : headers) {
    if (!ascii_iequals(h.name, "cookie") || h.value.empty()) continue;
    out += first ? "Cookie: " : "; ";
    out += h.value;
    first = false;
  }
  if (!first) out += "\r\n";
}

}  // namespace

std::string callback_request(const CallbackTarget& target, const CallbackQuestion& question,
                             std::span<const std::string> forwarded) {
  const std::string json = body(question);
  std::string out = "POST " + target.target + " HTTP/1.1\r\nHost: " + target.host + "\r\n";
  out += "User-Agent: sluiced\r\nContent-Type: application/json\r\nConnection: close\r\n";
  out += "Content-Length: " + std::to_string(json.size()) + "\r\n";
  append_cookies(question.headers, out);
  // The values were accepted by sluice's strict request parser, so they
  // hold no CR or LF that could split this request.
  for (const std::string& name : forwarded) {
    for (const proto::http1::Header& h : question.headers) {
      if (ascii_iequals(h.name, name)) out.append(name).append(": ").append(h.value).append("\r\n");
    }
  }
  out += "\r\n";
  out += json;
  return out;
}

Decision decision_for_status(int status, std::string_view retry_after) {
  if (status >= 200 && status <= 299) return Decision::allow();
  const std::string answered = "the authorization callback answered " + std::to_string(status);
  switch (status) {
    case 401: return Decision::missing_token(answered);
    case 403: return Decision::forbid(answered);
    case 429: {
      unsigned seconds = 1;
      const auto [end, ec] = std::from_chars(retry_after.data(), retry_after.data() + retry_after.size(), seconds);
      if (ec != std::errc() || end != retry_after.data() + retry_after.size()) seconds = 1;
      return Decision::over_limit(answered, std::min(seconds, 3600u));
    }
    default: return Decision::callback_failed(answered, 1);
  }
}

bool cacheable(const Decision& decision) {
  return decision.verdict == Verdict::allow || decision.verdict == Verdict::unauthenticated ||
         decision.verdict == Verdict::forbidden;
}

std::string check_forwarded_headers(std::span<const std::string> forwarded) {
  for (const std::string& name : forwarded) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), token_char)) {
      return "config key 'auth.callback_headers': '" + name + "' is not a header name";
    }
    for (std::string_view reserved : kNotForwarded) {
      if (ascii_iequals(name, reserved)) {
        return "config key 'auth.callback_headers': '" + name +
               "' cannot be forwarded (sluice sets it, or sends cookies itself)";
      }
    }
  }
  return {};
}

}  // namespace sluice::auth
