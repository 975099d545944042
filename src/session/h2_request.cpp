#include "session/h2_request.hpp"

namespace sluice::session {

proto::http1::Method method_of(std::string_view text) {
  using proto::http1::Method;
  if (text == "GET") return Method::get;
  if (text == "POST") return Method::post;
  if (text == "HEAD") return Method::head;
  if (text == "OPTIONS") return Method::options;
  if (text == "PUT") return Method::put;
  if (text == "DELETE") return Method::del;
  return Method::other;
}

proto::http1::Request as_http1_request(const transport::H2Request& h2, std::vector<proto::http1::Header>& fields) {
  fields.clear();
  bool has_host = false;
  for (const transport::H2Header& h : h2.headers) {
    fields.push_back({h.name, h.value});
    has_host = has_host || h.name == "host";
  }
  if (!has_host && !h2.authority.empty()) fields.push_back({"host", h2.authority});
  proto::http1::Request request;
  request.method = method_of(h2.method);
  request.method_text = h2.method;
  request.target = h2.path;
  const std::size_t question = h2.path.find('?');
  request.path = h2.path.substr(0, question);
  request.query = question == std::string_view::npos ? std::string_view() : h2.path.substr(question + 1);
  request.version_minor = 1;
  request.keep_alive = true;
  request.headers = fields;
  return request;
}

}  // namespace sluice::session
