#include "session/kept_request.hpp"

namespace sluice::session {

KeptRequest::Span KeptRequest::add(std::string_view part) {
  const Span span{text_.size(), part.size()};
  text_.append(part);
  return span;
}

buf::ChargeStatus KeptRequest::keep(const proto::http1::Request& request, buf::MemoryAccount* account) {
  let_go();
  std::size_t size = request.method_text.size() + request.path.size() + request.query.size();
  for (const proto::http1::Header& h : request.headers) size += h.name.size() + h.value.size();
  const std::size_t fields = request.headers.size();
  // What is reserved below: the text, and two entries per field.
  const std::size_t bytes = size + fields * (sizeof(Field) + sizeof(server::HeaderField));
  if (account != nullptr) {
    if (const buf::ChargeStatus status = account->charge(bytes); status != buf::ChargeStatus::ok) return status;
  }
  account_ = account;
  charged_ = bytes;
  text_.reserve(size);
  method_ = add(request.method_text);
  path_ = add(request.path);
  query_ = add(request.query);
  fields_.reserve(fields);
  views_.reserve(fields);
  for (const proto::http1::Header& h : request.headers) fields_.emplace_back(add(h.name), add(h.value));
  return buf::ChargeStatus::ok;
}

void KeptRequest::let_go() {
  std::string().swap(text_);
  std::vector<Field>().swap(fields_);
  std::vector<server::HeaderField>().swap(views_);
  method_ = path_ = query_ = {};
  if (account_ != nullptr) account_->release(charged_);
  account_ = nullptr;
  charged_ = 0;
}

void KeptRequest::take(KeptRequest& other) {
  text_ = std::exchange(other.text_, {});
  method_ = std::exchange(other.method_, {});
  path_ = std::exchange(other.path_, {});
  query_ = std::exchange(other.query_, {});
  fields_ = std::exchange(other.fields_, {});
  views_.clear();  // views into the other's text; view() makes them again
  other.views_.clear();
  account_ = std::exchange(other.account_, nullptr);
  charged_ = std::exchange(other.charged_, 0);
}

RequestView KeptRequest::view() const {
  views_.clear();
  for (const auto& [name, value] : fields_) views_.push_back({at(name), at(value)});
  return {at(method_), at(path_), at(query_), server::Headers(views_)};
}

}  // namespace sluice::session
