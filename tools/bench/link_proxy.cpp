#include "link_proxy.hpp"

#include <linux/sockios.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <string>

#include "clock.hpp"
#include "net.hpp"

namespace sluice::bench {

namespace {
constexpr std::uint64_t kNever = UINT64_MAX;
constexpr std::uint64_t kMaxWaitNs = 20 * kNsPerMs;  // how soon stop() is noticed
constexpr std::size_t kReadChunk = 65536;
constexpr std::uint64_t kClientLookNs = kNsPerMs;  // client=shallow: how often a full client window is looked at
}  // namespace

// Tokens are bytes; they refill at the link rate up to a burst of 2 ms of
// traffic (at least one 1500-byte packet), so the rate holds over any
// stretch longer than a few milliseconds. While bytes wait for tokens the
// link is busy, so a wake-up that comes late (a loaded machine) may send
// what the link would have sent meanwhile, up to 100 ms of it, and tokens
// owed that way are not clipped before the window lets them be spent:
// capping them at the burst made the rate drift low whenever the thread
// was descheduled.
class LinkProxy::Bucket {
 public:
  explicit Bucket(double rate)
      : rate_(rate), burst_(std::max(rate * 0.002, 1500.0)), catch_up_(std::max(rate * 0.1, burst_)), tokens_(burst_) {}

  std::size_t available(std::uint64_t now) {
    if (rate_ <= 0) return SIZE_MAX;
    const double cap = starved_ ? catch_up_ : std::max(burst_, tokens_);
    tokens_ = std::min(cap, tokens_ + static_cast<double>(now - last_) * rate_ / 1e9);
    last_ = now;
    starved_ = false;
    return static_cast<std::size_t>(tokens_);
  }
  void take(std::size_t bytes) { tokens_ -= static_cast<double>(bytes); }
  // Bytes are due and the tokens ran out: the link is busy until they go.
  void starve() { starved_ = true; }
  // When `bytes` tokens will be there.
  std::uint64_t ready_at(std::size_t bytes, std::uint64_t now) const {
    if (rate_ <= 0 || tokens_ >= static_cast<double>(bytes)) return now;
    return now + static_cast<std::uint64_t>((static_cast<double>(bytes) - tokens_) / rate_ * 1e9) + 1;
  }

 private:
  double rate_;
  double burst_;
  double catch_up_;
  double tokens_;
  bool starved_ = false;
  std::uint64_t last_ = now_ns();
};

struct LinkProxy::Pipe {
  struct Mark {
    std::uint64_t due;  // when the bytes up to `end` may leave
    std::uint64_t end;  // read_total after the read that made this mark
  };
  int from = -1;
  int to = -1;
  bool down = false;  // server to client
  std::string bytes;  // read, not yet delivered; bytes[0] is byte `delivered`
  std::deque<Mark> marks;
  std::uint64_t read_total = 0;
  std::uint64_t delivered = 0;
  bool eof = false;
  bool shut = false;
  bool broken = false;
  bool blocked = false;  // the last send hit EAGAIN
  bool client_full = false;  // client=shallow: the client's window has no room for more
};

struct LinkProxy::Link {
  int client = -1;
  int server = -1;
  Pipe up;
  Pipe down;
  ~Link() {
    if (client >= 0) ::close(client);
    if (server >= 0) ::close(server);
  }
  [[nodiscard]] bool finished() const {
    return up.broken || down.broken || (up.shut && down.shut);
  }
};

LinkProxy::LinkProxy(const io::Endpoint& server, const LinkOptions& link)
    : server_(server), link_(link), down_(std::make_unique<Bucket>(link.rate)), up_(std::make_unique<Bucket>(link.rate)) {
  if (link_.window == 0) link_.window = kDefaultLinkWindow;
}

LinkProxy::~LinkProxy() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

int LinkProxy::start() {
  listen_fd_ = io::listen_tcp({"127.0.0.1", 0}, {});
  if (listen_fd_ < 0) return listen_fd_;
  port_ = io::local_port(listen_fd_);
  thread_ = std::thread([this] { run(); });
  return 0;
}

void LinkProxy::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  links_.clear();
}

void LinkProxy::run() {
  while (!stop_.load(std::memory_order_relaxed)) {
    const std::uint64_t now = now_ns();
    accept_links();
    std::uint64_t wake = now + kMaxWaitNs;
    for (auto& link : links_) {
      pump(link->down, *down_, now);
      pump(link->up, *up_, now);
      wake = std::min({wake, next_wake(link->down, *down_, now), next_wake(link->up, *up_, now)});
    }
    reap();
    wait(now, wake);
  }
}

void LinkProxy::accept_links() {
  for (int fd; (fd = io::accept_nonblocking(listen_fd_)) >= 0;) {
    auto link = std::make_unique<Link>();
    link->client = fd;
    link->server = dial(server_, static_cast<int>(link_.window));
    if (link->server < 0 || io::set_nonblocking(link->server, true) != 0) continue;
    io::set_nodelay(link->client, true);
    link->up = Pipe{.from = link->client, .to = link->server};
    link->down = Pipe{.from = link->server, .to = link->client, .down = true};
    links_.push_back(std::move(link));
  }
}

void LinkProxy::pump(Pipe& pipe, Bucket& bucket, std::uint64_t now) {
  if (pipe.broken) return;
  read_into(pipe, now);
  write_from(pipe, bucket, now);
  if (pipe.eof && !pipe.shut && pipe.delivered == pipe.read_total) {
    ::shutdown(pipe.to, SHUT_WR);
    pipe.shut = true;
  }
}

namespace {

// What the client can take now beyond what is already on its way to it:
// the window it advertised, less what the proxy's socket to it holds
// (unsent or unacknowledged). SIZE_MAX when the kernel does not say.
std::size_t client_room(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  int queued = 0;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 ||
      length < offsetof(tcp_info, tcpi_snd_wnd) + sizeof info.tcpi_snd_wnd || ::ioctl(fd, SIOCOUTQ, &queued) != 0) {
    return SIZE_MAX;
  }
  const auto outstanding = static_cast<std::size_t>(std::max(queued, 0));
  return info.tcpi_snd_wnd > outstanding ? info.tcpi_snd_wnd - outstanding : 0;
}

}  // namespace

// Server to client, the pipe takes from the server no more than the client
// has room for, counting what the pipe already carries: a real link cannot
// carry bytes the receiver has no window for, so a slow reader's full
// buffer reaches the server as a closing window, not as bytes parked in
// the emulator (where no server could see them).
void LinkProxy::read_into(Pipe& pipe, std::uint64_t now) {
  while (!pipe.eof && pipe.bytes.size() < link_.window) {
    char chunk[kReadChunk];
    std::size_t room = std::min(kReadChunk, link_.window - pipe.bytes.size());
    if (pipe.down && link_.shallow) {
      const std::size_t client = client_room(pipe.to);
      room = std::min(room, client > pipe.bytes.size() ? client - pipe.bytes.size() : 0);
      // Nothing tells the proxy when the client's window opens: look again soon.
      pipe.client_full = room == 0;
      if (room == 0) return;
    }
    const ssize_t n = ::recv(pipe.from, chunk, room, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0) {
      pipe.broken = true;
      return;
    }
    if (n == 0) pipe.eof = true;
    pipe.bytes.append(chunk, static_cast<std::size_t>(n));
    pipe.read_total += static_cast<std::size_t>(n);
    if (n > 0) pipe.marks.push_back({now + link_.delay_ns, pipe.read_total});
  }
}

void LinkProxy::write_from(Pipe& pipe, Bucket& bucket, std::uint64_t now) {
  while (!pipe.marks.empty() && pipe.marks.front().due <= now) {
    const std::uint64_t due_end = pipe.marks.front().end;
    const std::size_t want = std::min<std::size_t>(due_end - pipe.delivered, bucket.available(now));
    if (want == 0) return bucket.starve();
    const ssize_t n = ::send(pipe.to, pipe.bytes.data(), want, MSG_DONTWAIT | MSG_NOSIGNAL);
    pipe.blocked = n < 0 && errno == EAGAIN;
    if (n < 0) {
      pipe.broken = !pipe.blocked && errno != EINTR;
      return;
    }
    bucket.take(static_cast<std::size_t>(n));
    pipe.bytes.erase(0, static_cast<std::size_t>(n));
    pipe.delivered += static_cast<std::size_t>(n);
    if (pipe.down) bytes_down_.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
    if (pipe.delivered == due_end) pipe.marks.pop_front();
  }
}

// The next time this pipe has something to do without a socket event: its
// oldest bytes fall due, or the bucket holds enough for a packet.
std::uint64_t LinkProxy::next_wake(const Pipe& pipe, const Bucket& bucket, std::uint64_t now) const {
  if (pipe.client_full) return now + kClientLookNs;
  if (pipe.broken || pipe.marks.empty() || pipe.blocked) return kNever;
  const Pipe::Mark& first = pipe.marks.front();
  if (first.due > now) return first.due;
  return bucket.ready_at(std::min<std::size_t>(first.end - pipe.delivered, 1500), now);
}

void LinkProxy::wait(std::uint64_t now, std::uint64_t wake_at) {
  std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}};
  for (const auto& link : links_) {
    const auto watch = [&fds, this](const Pipe& p) {
      if (!p.eof && p.bytes.size() < link_.window && !p.client_full) fds.push_back({p.from, POLLIN, 0});
      if (p.blocked) fds.push_back({p.to, POLLOUT, 0});
    };
    watch(link->up);
    watch(link->down);
  }
  const std::uint64_t wait_ns = wake_at > now ? wake_at - now : 0;
  const timespec timeout{static_cast<time_t>(wait_ns / kNsPerSec), static_cast<long>(wait_ns % kNsPerSec)};
  ::ppoll(fds.data(), fds.size(), &timeout, nullptr);
  for (auto& link : links_) link->up.blocked = link->down.blocked = false;
}

void LinkProxy::reap() {
  std::erase_if(links_, [](const std::unique_ptr<Link>& link) { return link->finished(); });
}

}  // namespace sluice::bench
