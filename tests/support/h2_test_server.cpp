#include "h2_test_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "buf/frame.hpp"
#include "conn/writer.hpp"
#include "io/socket.hpp"
#include "transport/tls_stream.hpp"

namespace sluice::transport::test {

class StreamRoutes;

struct H2TestServer::Connection {
  int fd = -1;
  std::unique_ptr<TlsStream> tls;
  std::unique_ptr<conn::SocketWriter> plain;
  std::unique_ptr<StreamRoutes> routes;
  std::unique_ptr<H2Session> session;
  bool want_write = true;  // the server's SETTINGS go out first
  bool closing = false;    // flush what is due, then close
  bool closed = false;

  conn::Writer& writer() { return tls ? static_cast<conn::Writer&>(*tls) : *plain; }
};

// The test routes, one per connection.
class StreamRoutes final : public H2Handler {
 public:
  StreamRoutes(H2TestServer& server, H2TestServer::Connection& connection, buf::Pool& pool)
      : server_(server), connection_(connection), pool_(pool) {}

  void on_request(const H2Request& request) override {
    H2Session& session = *connection_.session;
    const std::string path(request.path);
    if (request.method == "GET" && path.starts_with("/sse/")) {
      const H2Header headers[] = {{"content-type", "text/event-stream"}, {"cache-control", "no-cache"}};
      session.respond(request.stream, 200, headers, true);
      queue(request.stream, ": open\n\n");
      server_.subscribers_.push_back({&connection_, request.stream, path.substr(5)});
    } else if (request.method == "POST" && path.starts_with("/pub/")) {
      posts_[request.stream] = {path.substr(5), ""};
      if (request.end_stream) answer_post(request.stream);
    } else if (request.method == "CONNECT" && request.protocol == "websocket") {
      session.respond(request.stream, 200, {}, true);
      echoes_.push_back(request.stream);
    } else {
      session.respond(request.stream, 404, {}, false);
    }
  }

  void on_data(std::int32_t stream, std::string_view bytes) override {
    if (auto post = posts_.find(stream); post != posts_.end()) post->second.second.append(bytes);
    if (std::find(echoes_.begin(), echoes_.end(), stream) != echoes_.end()) queue(stream, bytes);
    connection_.session->consume(stream, bytes.size());
  }

  void on_end(std::int32_t stream) override {
    if (posts_.contains(stream)) return answer_post(stream);
    connection_.session->finish(stream);
  }

  void on_close(std::int32_t stream, std::uint32_t /*error_code*/) override {
    posts_.erase(stream);
    std::erase(echoes_, stream);
    server_.unsubscribe(&connection_, stream);
  }

 private:
  void queue(std::int32_t stream, std::string_view bytes) {
    conn::OutQueue* queue = connection_.session->queue(stream);
    if (queue == nullptr) return;
    (void)queue->push_data(buf::make_frame(pool_, buf::Lane::data, bytes));
    connection_.session->wake(stream);
  }

  void answer_post(std::int32_t stream) {
    const auto [topic, body] = posts_[stream];
    const int count = server_.publish_now(topic, body);
    const H2Header headers[] = {{"content-type", "application/json"}};
    connection_.session->respond(stream, 200, headers, true);
    queue(stream, "{\"subscribers\":" + std::to_string(count) + "}");
    connection_.session->finish(stream);
    posts_.erase(stream);
  }

  H2TestServer& server_;
  H2TestServer::Connection& connection_;
  buf::Pool& pool_;
  std::map<std::int32_t, std::pair<std::string, std::string>> posts_;
  std::vector<std::int32_t> echoes_;
};

H2TestServer::H2TestServer(H2ServerOptions options)
    : options_(std::move(options)),
      pool_({.block_count = options_.pool_blocks, .block_size = options_.block_size, .reserve = 16,
             .prefault = false}) {
  listener_ = io::listen_tcp({"127.0.0.1", 0}, {});
  port_ = listener_ >= 0 ? io::local_port(listener_) : 0;
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) return;
  thread_ = std::thread([this] { run(); });
}

H2TestServer::~H2TestServer() {
  if (thread_.joinable()) {
    call([this] { stopping_ = true; });
    thread_.join();
  }
  for (int fd : {listener_, wake_[0], wake_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

template <typename F>
auto H2TestServer::call(F work) -> decltype(work()) {
  std::packaged_task<decltype(work())()> task(std::move(work));
  auto result = task.get_future();
  {
    std::lock_guard lock(tasks_mutex_);
    tasks_.emplace_back([&task] { task(); });
  }
  const char byte = 1;
  (void)::write(wake_[1], &byte, 1);
  return result.get();
}

void H2TestServer::run_tasks() {
  char drain[64];
  while (::read(wake_[0], drain, sizeof drain) > 0) {
  }
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard lock(tasks_mutex_);
    tasks.swap(tasks_);
  }
  for (auto& task : tasks) task();
}

void H2TestServer::run() {
  std::vector<pollfd> fds;
  while (!stopping_) {
    fds.assign({{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}});
    for (const auto& c : connections_) {
      fds.push_back({c->fd, static_cast<short>(POLLIN | (c->want_write ? POLLOUT : 0)), 0});
    }
    ::poll(fds.data(), fds.size(), 1000);
    run_tasks();
    if (fds[1].revents & POLLIN) accept_all();
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents != 0) serve(*connections_[i - 2], fds[i].revents);
    }
    for (const auto& c : connections_) flush(*c);
    std::erase_if(connections_, [this](std::unique_ptr<Connection>& c) {
      if (!c->closed) return false;
      if (c->session) closed_.push_back({c->session->end(), c->session->stats()});
      c->session.reset();  // tells the routes of every stream still open
      ::close(c->fd);
      return true;
    });
  }
}

void H2TestServer::accept_all() {
  for (;;) {
    const int fd = io::accept_nonblocking(listener_);
    if (fd < 0) return;
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    if (options_.tls) {
      c->tls = std::make_unique<TlsStream>(options_.tls, fd);
    } else {
      c->plain = std::make_unique<conn::SocketWriter>(fd);
    }
    c->routes = std::make_unique<StreamRoutes>(*this, *c, pool_);
    c->session = std::make_unique<H2Session>(*c->routes, options_.limits);
    connections_.push_back(std::move(c));
  }
}

void H2TestServer::serve(Connection& c, short revents) {
  if (c.closed) return;
  if (c.tls && !c.tls->established()) {
    const TlsStatus status = c.tls->handshake();
    c.closed = status == TlsStatus::failed || (status == TlsStatus::ok && c.tls->protocol() != AppProtocol::h2);
    if (status != TlsStatus::ok) return;
  }
  if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !c.closing) c.closed = !read_input(c);
}

// Feeds what arrived to the session; false when the connection is over.
bool H2TestServer::read_input(Connection& c) {
  std::array<char, 16384> chunk;
  for (;;) {
    std::size_t got = 0;
    if (c.tls) {
      const TlsStatus status = c.tls->read(chunk, got);
      if (status == TlsStatus::want_read || status == TlsStatus::want_write) return true;
      if (status != TlsStatus::ok) return false;
    } else {
      const ssize_t n = ::recv(c.fd, chunk.data(), chunk.size(), 0);
      if (n < 0 && errno == EAGAIN) return true;
      if (n <= 0) return false;
      got = static_cast<std::size_t>(n);
    }
    const H2Status status = c.session->receive({chunk.data(), got}, H2Session::Clock::now());
    if (status == H2Status::failed) return false;
    if (status == H2Status::closing) {
      c.closing = true;
      return true;
    }
  }
}

void H2TestServer::flush(Connection& c) {
  if (c.closed || (c.tls && !c.tls->established())) return;
  const conn::FlushResult result = c.session->flush(c.writer());
  if (result.status == conn::FlushStatus::error) {
    c.closed = true;
    return;
  }
  const bool tls_holds = c.tls && c.tls->holds_output() && c.tls->writev(nullptr, 0) >= 0 && c.tls->holds_output();
  c.want_write = result.status == conn::FlushStatus::blocked || tls_holds;
  if (!c.want_write && (c.session->done() || (c.closing && !c.session->wants_write()))) c.closed = true;
}

int H2TestServer::publish_now(const std::string& topic, const std::string& data) {
  int count = 0;
  for (Subscriber& s : subscribers_) {
    if (s.topic != topic) continue;
    conn::OutQueue* queue = s.connection->session->queue(s.stream);
    if (queue == nullptr) continue;
    buf::FrameRef frame = buf::make_frame(pool_, buf::Lane::data, "data: " + data + "\n\n");
    if (!frame || queue->push_data(std::move(frame)) != conn::EnqueueStatus::ok) {
      ++s.refusals;
      ++refusals_[topic];
      continue;
    }
    s.connection->session->wake(s.stream);
    ++count;
  }
  return count;
}

void H2TestServer::unsubscribe(Connection* connection, std::int32_t stream) {
  std::erase_if(subscribers_, [&](const Subscriber& s) { return s.connection == connection && s.stream == stream; });
}

int H2TestServer::publish(const std::string& topic, const std::string& data) {
  return call([&] { return publish_now(topic, data); });
}

int H2TestServer::subscribers(const std::string& topic) {
  return call([&] {
    return static_cast<int>(std::count_if(subscribers_.begin(), subscribers_.end(),
                                          [&](const Subscriber& s) { return s.topic == topic; }));
  });
}

std::uint64_t H2TestServer::ask_ack() {
  return call([&] {
    std::uint64_t number = 0;
    for (const auto& c : connections_) number = c->session->ask_ack();
    return number;
  });
}

std::uint64_t H2TestServer::acks_answered() {
  return call([&] { return connections_.empty() ? 0 : connections_.back()->session->acks_answered(); });
}

std::size_t H2TestServer::acks_asked() {
  return call([&] {
    return static_cast<std::size_t>(std::count_if(connections_.begin(), connections_.end(),
                                                  [](const auto& c) { return c->session->ack_asked(); }));
  });
}

std::uint64_t H2TestServer::refusals(const std::string& topic) {
  return call([&] { return refusals_[topic]; });
}

std::size_t H2TestServer::queued(const std::string& topic) {
  return call([&] {
    std::size_t bytes = 0;
    for (const Subscriber& s : subscribers_) {
      conn::OutQueue* queue = s.topic == topic ? s.connection->session->queue(s.stream) : nullptr;
      if (queue != nullptr) bytes += queue->data_bytes();
    }
    return bytes;
  });
}

std::vector<H2Stats> H2TestServer::open_sessions() {
  return call([&] {
    std::vector<H2Stats> out;
    for (const auto& c : connections_) out.push_back(c->session->stats());
    return out;
  });
}

std::vector<ClosedSession> H2TestServer::closed_sessions() {
  return call([&] { return closed_; });
}

std::size_t H2TestServer::sessions_accepted() {
  return call([&] { return closed_.size() + connections_.size(); });
}

bool H2TestServer::wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace sluice::transport::test
