#include "session/h2_waiting.hpp"

namespace sluice::session {

H2Waiting::Span H2Waiting::add(std::string_view part) {
  const Span span{text_.size(), part.size()};
  text_.append(part);
  return span;
}

void H2Waiting::keep(const transport::H2Request& request) {
  text_.clear();
  fields_.clear();
  stream_ = request.stream;
  end_stream_ = request.end_stream;
  client_ended = false;
  method_ = add(request.method);
  scheme_ = add(request.scheme);
  authority_ = add(request.authority);
  path_ = add(request.path);
  protocol_ = add(request.protocol);
  for (const transport::H2Header& field : request.headers) fields_.emplace_back(add(field.name), add(field.value));
}

transport::H2Request H2Waiting::request() {
  views_.clear();
  for (const auto& [name, value] : fields_) views_.push_back({at(name), at(value)});
  return {.stream = stream_,
          .method = at(method_),
          .scheme = at(scheme_),
          .authority = at(authority_),
          .path = at(path_),
          .protocol = at(protocol_),
          .headers = views_,
          .end_stream = end_stream_};
}

}  // namespace sluice::session
