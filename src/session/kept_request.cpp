#include "session/kept_request.hpp"

namespace sluice::session {

KeptRequest::Span KeptRequest::add(std::string_view part) {
  const Span span{text_.size(), part.size()};
  text_.append(part);
  return span;
}

void KeptRequest::keep(const proto::http1::Request& request) {
  text_.clear();
  fields_.clear();
  std::size_t size = request.method_text.size() + request.path.size() + request.query.size();
  for (const proto::http1::Header& h : request.headers) size += h.name.size() + h.value.size();
  text_.reserve(size);
  method_ = add(request.method_text);
  path_ = add(request.path);
  query_ = add(request.query);
  fields_.reserve(request.headers.size());
  views_.reserve(request.headers.size());
  for (const proto::http1::Header& h : request.headers) fields_.emplace_back(add(h.name), add(h.value));
}

RequestView KeptRequest::view() const {
  views_.clear();
  for (const auto& [name, value] : fields_) views_.push_back({at(name), at(value)});
  return {at(method_), at(path_), at(query_), server::Headers(views_)};
}

}  // namespace sluice::session
