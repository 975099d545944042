#include "h2_client_stream.hpp"

#include <charconv>
#include <vector>

#include "head_reader.hpp"

namespace sluice::client::detail {

namespace {

// Body bytes the server may send ahead of the reader: on the stream, and
// on the connection (which carries this stream alone).
constexpr std::uint32_t kWindow = 1 << 20;

H2ClientStream& self_of(void* self) { return *static_cast<H2ClientStream*>(self); }

std::string_view view(const std::uint8_t* data, std::size_t length) {
  return {reinterpret_cast<const char*>(data), length};
}

nghttp2_nv field(std::string_view name, std::string_view value) {
  // nghttp2 copies names and values when the request is submitted.
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

H2ClientStream::H2ClientStream(Body& body) : body_(body) {}

H2ClientStream::~H2ClientStream() { nghttp2_session_del(session_); }

bool H2ClientStream::open(const Url& url, std::span<const std::pair<std::string_view, std::string_view>> headers) {
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return false;
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_close);
  const int rc = nghttp2_session_client_new(&session_, callbacks, this);
  nghttp2_session_callbacks_del(callbacks);
  if (rc != 0) return false;
  const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                             {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kWindow},
                                             {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, kMaxHeadBytes}};
  if (nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings)) != 0 ||
      nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, kWindow) != 0) {
    return false;
  }
  const std::string authority = url.authority();
  std::vector<nghttp2_nv> fields = {field(":method", "GET"), field(":scheme", url.tls ? "https" : "http"),
                                    field(":authority", authority), field(":path", url.target)};
  for (const auto& [name, value] : headers) fields.push_back(field(name, value));
  stream_ = nghttp2_submit_request(session_, nullptr, fields.data(), fields.size(), nullptr, nullptr);
  return stream_ > 0;
}

std::string_view H2ClientStream::output() {
  out_.clear();
  const std::uint8_t* data = nullptr;
  for (ssize_t n; (n = nghttp2_session_mem_send(session_, &data)) > 0;) {
    out_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
  return out_;
}

H2ClientStream::Feed H2ClientStream::feed(std::string_view bytes) {
  const ssize_t rc = nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                              bytes.size());
  if (stopped_) return Feed::stopped;
  if (too_big_) return Feed::too_big;
  if (rc < 0) {
    error_ = std::string("the server broke HTTP/2: ") + nghttp2_strerror(static_cast<int>(rc));
    return Feed::broken;
  }
  return Feed::ok;
}

int H2ClientStream::on_header(nghttp2_session* session, const nghttp2_frame* frame, const std::uint8_t* name,
                              std::size_t name_length, const std::uint8_t* value, std::size_t value_length,
                              std::uint8_t, void* self) {
  H2ClientStream& s = self_of(self);
  if (frame->hd.stream_id != s.stream_ || s.head_complete_) return 0;
  s.head_bytes_ += name_length + value_length + 32;
  if (s.head_bytes_ > kMaxHeadBytes) {
    s.too_big_ = true;
    nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, s.stream_, NGHTTP2_REFUSED_STREAM);
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  }
  const std::string_view n = view(name, name_length);
  const std::string_view v = view(value, value_length);
  if (n == ":status") {
    int status = 0;
    std::from_chars(v.data(), v.data() + v.size(), status);
    s.head_.status = status;
  } else if (n == "content-type") {
    s.head_.content_type.assign(v);
  } else if (n == "retry-after") {
    s.head_.retry_after.assign(v);
  }
  return 0;
}

int H2ClientStream::on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self) {
  H2ClientStream& s = self_of(self);
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    s.ended_ = true;
    s.error_code_ = frame->goaway.error_code;
    s.goaway_code_ = frame->goaway.error_code;
  }
  if (frame->hd.type == NGHTTP2_HEADERS && frame->hd.stream_id == s.stream_ && !s.too_big_ &&
      frame->headers.cat == NGHTTP2_HCAT_RESPONSE) {
    s.head_complete_ = true;
  }
  return 0;
}

int H2ClientStream::on_data(nghttp2_session*, std::uint8_t, std::int32_t stream, const std::uint8_t* data,
                            std::size_t length, void* self) {
  H2ClientStream& s = self_of(self);
  if (stream == s.stream_ && !s.stopped_ && !s.body_.on_body(view(data, length))) s.stopped_ = true;
  return 0;
}

int H2ClientStream::on_close(nghttp2_session*, std::int32_t stream, std::uint32_t error_code, void* self) {
  H2ClientStream& s = self_of(self);
  if (stream != s.stream_) return 0;
  s.ended_ = true;
  s.error_code_ = error_code;
  return 0;
}

}  // namespace sluice::client::detail
