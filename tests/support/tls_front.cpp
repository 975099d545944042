#include "tls_front.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "io/socket.hpp"
#include "transport/tls_stream.hpp"

namespace sluice::test {

namespace {

// Bytes held for a side that is not reading; past it the other side waits.
constexpr std::size_t kHeld = std::size_t{1} << 20;

}  // namespace

struct TlsFront::Pair {
  int client = -1;
  int backend = -1;
  std::unique_ptr<transport::TlsStream> tls;
  std::string to_backend;
  std::string to_client;
  bool client_done = false;   // the client closed its side
  bool backend_done = false;  // the backend closed its side

  ~Pair() {
    tls.reset();
    if (client >= 0) ::close(client);
    if (backend >= 0) ::close(backend);
  }
};

TlsFront::TlsFront(transport::TlsContext context, std::uint16_t backend_port)
    : context_(std::move(context)), backend_port_(backend_port) {
  listener_ = io::listen_tcp({"127.0.0.1", 0}, {});
  port_ = listener_ >= 0 ? io::local_port(listener_) : 0;
  if (listener_ < 0 || ::pipe2(stop_, O_CLOEXEC) != 0) return;
  thread_ = std::thread([this] { run(); });
}

TlsFront::~TlsFront() {
  if (thread_.joinable()) {
    (void)::write(stop_[1], "x", 1);
    thread_.join();
  }
  for (const int fd : {listener_, stop_[0], stop_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

void TlsFront::run() {
  std::vector<std::unique_ptr<Pair>> pairs;
  for (;;) {
    std::vector<pollfd> fds = {{stop_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
    for (const auto& p : pairs) {
      const bool to_client = !p->to_client.empty() || p->tls->holds_output() || !p->tls->established();
      fds.push_back({p->client, static_cast<short>(POLLIN | (to_client ? POLLOUT : 0)), 0});
      fds.push_back({p->backend, static_cast<short>(POLLIN | (p->to_backend.empty() ? 0 : POLLOUT)), 0});
    }
    ::poll(fds.data(), fds.size(), 1000);
    if (fds[0].revents != 0) return;
    if (fds[1].revents & POLLIN) {
      for (int fd; (fd = io::accept_nonblocking(listener_)) >= 0;) {
        auto p = std::make_unique<Pair>();
        p->client = fd;
        p->backend = io::connect_tcp({"127.0.0.1", backend_port_});
        if (p->backend < 0) continue;
        (void)io::set_nonblocking(p->backend, true);
        p->tls = std::make_unique<transport::TlsStream>(context_, fd);
        pairs.push_back(std::move(p));
      }
    }
    std::erase_if(pairs, [this](std::unique_ptr<Pair>& p) { return !serve(*p); });
  }
}

// Moves what it can both ways; false once the pair is over.
bool TlsFront::serve(Pair& p) {
  if (!p.tls->established()) {
    const transport::TlsStatus status = p.tls->handshake();
    if (status == transport::TlsStatus::failed) ++refused_;
    if (status == transport::TlsStatus::failed) return false;
    if (status != transport::TlsStatus::ok) return true;
    ++handshakes_;
  }
  std::array<char, 16384> chunk;
  while (!p.client_done && p.to_backend.size() < kHeld) {
    std::size_t got = 0;
    const transport::TlsStatus status = p.tls->read(chunk, got);
    if (status == transport::TlsStatus::ok) p.to_backend.append(chunk.data(), got);
    if (status == transport::TlsStatus::eof || status == transport::TlsStatus::failed) p.client_done = true;
    if (status != transport::TlsStatus::ok) break;
  }
  while (!p.backend_done && p.to_client.size() < kHeld) {
    const ssize_t n = ::recv(p.backend, chunk.data(), chunk.size(), 0);
    if (n > 0) p.to_client.append(chunk.data(), static_cast<std::size_t>(n));
    if (n == 0 || (n < 0 && errno != EAGAIN)) p.backend_done = true;
    if (n <= 0) break;
  }
  if (!p.to_backend.empty()) {
    const ssize_t n = ::send(p.backend, p.to_backend.data(), p.to_backend.size(), MSG_NOSIGNAL);
    if (n > 0) p.to_backend.erase(0, static_cast<std::size_t>(n));
  }
  if (!p.to_client.empty() || p.tls->holds_output()) {
    struct iovec iov{p.to_client.data(), p.to_client.size()};
    const long n = p.tls->writev(&iov, p.to_client.empty() ? 0 : 1);
    if (n > 0) p.to_client.erase(0, static_cast<std::size_t>(n));
    if (n < 0 && n != -EAGAIN) return false;
  }
  if (p.client_done && p.to_backend.empty()) ::shutdown(p.backend, SHUT_WR);
  const bool flushed = p.to_client.empty() && !p.tls->holds_output();
  return !(p.backend_done && flushed) && !(p.client_done && p.backend_done);
}

}  // namespace sluice::test
