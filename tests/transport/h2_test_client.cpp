#include "h2_test_client.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "io/socket.hpp"

namespace sluice::transport::test {

namespace {

using Clock = std::chrono::steady_clock;

H2TestClient& self_of(void* self) { return *static_cast<H2TestClient*>(self); }

// The views must outlive nghttp2_submit_request (which copies them).
nghttp2_nv nv(std::string_view name, std::string_view value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

// A loopback connection whose receive buffer is set before the handshake,
// so the window it offers is the small buffer's from the start.
int connect_with_buffer(std::uint16_t port, int receive_buffer) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (io::set_receive_buffer(fd, receive_buffer) != 0 ||
      ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::string h2_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload) {
  std::string out;
  const std::size_t n = payload.size();
  out.push_back(static_cast<char>(n >> 16));
  out.push_back(static_cast<char>(n >> 8));
  out.push_back(static_cast<char>(n));
  out.push_back(static_cast<char>(type));
  out.push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((stream >> shift) & 0xff));
  out.append(payload);
  return out;
}

H2TestClient::H2TestClient(std::uint16_t port, const H2ClientOptions& options) : raw_(options.raw) {
  fd_ = options.receive_buffer > 0 ? connect_with_buffer(port, options.receive_buffer)
                                   : io::connect_tcp({"127.0.0.1", port});
  if (fd_ < 0) return;
  (void)io::set_nonblocking(fd_, true);
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_send_callback(callbacks, on_send);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_close);
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  nghttp2_option_set_no_auto_window_update(option, options.auto_window ? 0 : 1);
  nghttp2_session_client_new2(&session_, callbacks, this, option);
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, options.initial_window}};
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 1);
}

H2TestClient::~H2TestClient() {
  nghttp2_session_del(session_);
  if (fd_ >= 0) ::close(fd_);
}

std::int32_t H2TestClient::request(const std::string& method, const std::string& path,
                                   const std::vector<std::pair<std::string, std::string>>& headers,
                                   const std::string& body, bool keep_open, const std::string& protocol) {
  std::vector<nghttp2_nv> fields = {nv(":method", method), nv(":path", path), nv(":authority", "127.0.0.1"),
                                    nv(":scheme", "http")};
  if (!protocol.empty()) fields.push_back(nv(":protocol", protocol));
  for (const auto& [name, value] : headers) fields.push_back(nv(name, value));
  const bool has_body = !body.empty() || keep_open;
  nghttp2_data_provider provider{};
  provider.read_callback = read_body;
  const std::int32_t id =
      nghttp2_submit_request(session_, nullptr, fields.data(), fields.size(), has_body ? &provider : nullptr, this);
  if (id > 0) {
    streams_[id].outbox = body;
    streams_[id].end_after_outbox = !keep_open;
  }
  return id;
}

void H2TestClient::send(std::int32_t stream, const std::string& bytes, bool end) {
  streams_[stream].outbox += bytes;
  streams_[stream].end_after_outbox = end;
  nghttp2_session_resume_data(session_, stream);
}

void H2TestClient::consume(std::int32_t stream, std::size_t bytes) { nghttp2_session_consume(session_, stream, bytes); }

ssize_t H2TestClient::read_body(nghttp2_session*, std::int32_t stream, std::uint8_t* buf, std::size_t length,
                                std::uint32_t* flags, nghttp2_data_source*, void* self) {
  ClientStream& s = self_of(self).streams_[stream];
  const std::size_t n = std::min(length, s.outbox.size());
  std::copy_n(s.outbox.data(), n, buf);
  s.outbox.erase(0, n);
  if (s.outbox.empty() && s.end_after_outbox) *flags |= NGHTTP2_DATA_FLAG_EOF;
  if (n == 0 && !s.end_after_outbox) return NGHTTP2_ERR_DEFERRED;
  return static_cast<ssize_t>(n);
}

ssize_t H2TestClient::on_send(nghttp2_session*, const std::uint8_t* data, std::size_t length, int, void* self) {
  self_of(self).out_.append(reinterpret_cast<const char*>(data), length);
  return static_cast<ssize_t>(length);
}

int H2TestClient::on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self) {
  H2TestClient& c = self_of(self);
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    c.goaway_ = true;
    c.goaway_code_ = frame->goaway.error_code;
  }
  if (frame->hd.type == NGHTTP2_RST_STREAM) c.streams_[frame->hd.stream_id].error_code = frame->rst_stream.error_code;
  if (frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK) == 0) ++c.pings_;
  return 0;
}

int H2TestClient::on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                            std::size_t name_length, const std::uint8_t* value, std::size_t value_length,
                            std::uint8_t, void* self) {
  ClientStream& s = self_of(self).streams_[frame->hd.stream_id];
  const std::string field(reinterpret_cast<const char*>(name), name_length);
  const std::string text(reinterpret_cast<const char*>(value), value_length);
  if (field == ":status") s.status = std::stoi(text);
  s.headers.emplace_back(field, text);
  return 0;
}

int H2TestClient::on_data(nghttp2_session*, std::uint8_t, std::int32_t stream, const std::uint8_t* data,
                          std::size_t length, void* self) {
  self_of(self).streams_[stream].body.append(reinterpret_cast<const char*>(data), length);
  return 0;
}

int H2TestClient::on_close(nghttp2_session*, std::int32_t stream, std::uint32_t error_code, void* self) {
  ClientStream& s = self_of(self).streams_[stream];
  s.closed = true;
  if (s.error_code == 0) s.error_code = error_code;
  return 0;
}

bool H2TestClient::flush() {
  if (raw_) return fd_ >= 0;
  if (nghttp2_session_send(session_) != 0) return false;
  write_raw(out_);
  out_.clear();
  return fd_ >= 0;
}

void H2TestClient::write_raw(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EAGAIN) {
      // The server is not reading (it may have closed): take what it
      // sent meanwhile, so that neither side waits on the other.
      pollfd p{fd_, POLLOUT | POLLIN, 0};
      ::poll(&p, 1, 1000);
      if ((p.revents & POLLIN) != 0 && !read_available()) return;
      continue;
    }
    return;  // the server has gone
  }
}

bool H2TestClient::read_some(std::size_t max_bytes, std::chrono::milliseconds limit) {
  if (!flush()) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
  std::array<char, 16384> chunk;
  const ssize_t n = ::recv(fd_, chunk.data(), std::min(max_bytes, chunk.size()), 0);
  if (n <= 0) {
    eof_ = n == 0;
    return false;
  }
  nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(chunk.data()), static_cast<std::size_t>(n));
  return flush();
}

// Reads and feeds what is there; false once the server closed.
bool H2TestClient::read_available() {
  std::array<char, 16384> chunk;
  for (;;) {
    const ssize_t n = ::recv(fd_, chunk.data(), chunk.size(), 0);
    if (n > 0 && raw_) {
      scan_raw({chunk.data(), static_cast<std::size_t>(n)});
      continue;
    }
    if (n > 0) {
      nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(chunk.data()),
                               static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EAGAIN) return true;
    eof_ = true;
    return false;
  }
}

void H2TestClient::scan_raw(std::string_view bytes) {
  in_.append(bytes);
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(in_[i])); };
  const auto word = [&](std::size_t i) { return (byte(i) << 24) | (byte(i + 1) << 16) | (byte(i + 2) << 8) | byte(i + 3); };
  while (in_.size() >= 9) {
    const std::size_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
    if (in_.size() < 9 + length) return;
    const std::uint32_t stream = word(5) & 0x7fffffffu;
    if (in_[3] == NGHTTP2_GOAWAY && length >= 8) {
      goaway_ = true;
      goaway_code_ = word(13);
    } else if (in_[3] == NGHTTP2_RST_STREAM && length == 4) {
      streams_[stream].error_code = word(9);
      streams_[stream].closed = true;
    } else if (in_[3] == NGHTTP2_HEADERS) {
      ++streams_[stream].headers_frames;
    }
    in_.erase(0, 9 + length);
  }
}

bool H2TestClient::pump(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    if (!eof_) flush();
    if (done()) return true;
    if (eof_ || Clock::now() >= deadline) return false;
    pollfd p{fd_, POLLIN, 0};
    ::poll(&p, 1, 20);
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) read_available();
  }
}

}  // namespace sluice::transport::test
