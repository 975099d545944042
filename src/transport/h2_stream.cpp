#include "transport/h2_stream.hpp"

namespace sluice::transport::detail {

namespace {

// RFC 9113 6.5.2: each field counts its name, its value and 32 bytes.
constexpr std::size_t kFieldOverhead = 32;

}  // namespace

void H2Stream::reset(std::int32_t stream_id) {
  queue.clear();
  id = stream_id;
  body_bytes = unconsumed = in_round = 0;
  sent = 0;
  allowance = {};
  budget = SIZE_MAX;
  budget_flush = 0;
  marks = {};
  told = responded = streaming = ending = deferred = refused = stop_sender = tunnel = closed = held = false;
  bytes_.clear();
  fields_.clear();
  views_.clear();
  method_ = scheme_ = authority_ = path_ = protocol_ = Field{};
  list_bytes_ = 0;
  too_big_ = too_many_fields_ = cookie_seen_ = false;
  cookie_crumbs_ = 0;
}

bool H2Stream::add_header(std::string_view name, std::string_view value, const H2Limits& limits) {
  list_bytes_ += name.size() + value.size() + kFieldOverhead;
  const bool pseudo = name.starts_with(':');
  // Field names arrive in lower case over HTTP/2 (nghttp2 refuses others).
  const bool crumb = !pseudo && name == "cookie" && cookie_seen_;
  if (!too_big_ && list_bytes_ > limits.max_header_list_bytes) {
    too_big_ = true;
  } else if (!too_big_ && !pseudo && !crumb && fields_.size() - cookie_crumbs_ >= limits.max_headers) {
    too_big_ = too_many_fields_ = true;
  }
  if (too_big_) return false;
  const Field field{static_cast<std::uint32_t>(bytes_.size()), static_cast<std::uint32_t>(name.size()),
                    static_cast<std::uint32_t>(bytes_.size() + name.size()),
                    static_cast<std::uint32_t>(value.size())};
  bytes_.append(name).append(value);
  if (!pseudo) {
    fields_.push_back(field);
    if (crumb) ++cookie_crumbs_;
    if (name == "cookie") cookie_seen_ = true;
  } else if (name == ":method") {
    method_ = field;
  } else if (name == ":scheme") {
    scheme_ = field;
  } else if (name == ":authority") {
    authority_ = field;
  } else if (name == ":path") {
    path_ = field;
  } else if (name == ":protocol") {
    protocol_ = field;
  }
  return true;
}

std::size_t H2Stream::footprint() const {
  return sizeof(H2Stream) + bytes_.capacity() + fields_.capacity() * sizeof(Field) +
         views_.capacity() * sizeof(H2Header);
}

void H2Stream::trim(std::size_t keep) {
  if (footprint() - sizeof(H2Stream) <= keep) return;
  std::string().swap(bytes_);
  std::vector<Field>().swap(fields_);
  std::vector<H2Header>().swap(views_);
}

H2Request H2Stream::request(bool end_stream) {
  views_.clear();
  for (const Field& f : fields_) views_.push_back({view(f.name_at, f.name_length), view(f.value_at, f.value_length)});
  H2Request out;
  out.stream = id;
  out.method = view(method_.value_at, method_.value_length);
  out.scheme = view(scheme_.value_at, scheme_.value_length);
  out.authority = view(authority_.value_at, authority_.value_length);
  out.path = view(path_.value_at, path_.value_length);
  out.protocol = view(protocol_.value_at, protocol_.value_length);
  out.headers = views_;
  out.end_stream = end_stream;
  return out;
}

}  // namespace sluice::transport::detail
