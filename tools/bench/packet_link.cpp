#include "packet_link.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <vector>

#include "clock.hpp"
#include "link_bottleneck.hpp"

namespace sluice::bench {

namespace {

constexpr const char* kDevice = "sluicelink0";
constexpr const char* kServerAddress = "10.251.0.1";
constexpr const char* kClientAddress = "10.251.0.2";
constexpr const char* kNetmask = "255.255.255.252";
// Bounds what the delay line holds when the rate does not (rate=0): the
// bytes on a long fast link. With a rate, the queue and the delay bound it
// first (3 Mbit/s and 20 ms: 64 KiB queued, 7.5 KB on the wire).
constexpr std::size_t kMaxHeldPackets = 65536;
constexpr std::size_t kMaxPacket = 65536;  // a tun without offloads reads at most one MTU

std::string failure(const std::string& what) { return what + ": " + std::strerror(errno); }

sockaddr_in ipv4(const char* address) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, address, &a.sin_addr);
  return a;
}

bool set_flag_up(int sock, const char* device) {
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, device, IFNAMSIZ - 1);
  if (::ioctl(sock, SIOCGIFFLAGS, &ifr) != 0) return false;
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  return ::ioctl(sock, SIOCSIFFLAGS, &ifr) == 0;
}

bool write_sysctl(const std::string& path, const char* value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, value, std::strlen(value)) == static_cast<ssize_t>(std::strlen(value));
  ::close(fd);
  return ok;
}

// In the calling thread's namespace: a tun device with `address`/30, up,
// taking loopback addresses from outside; the server side's loopback up,
// the readers' side's 127.0.0.0/8 routed out of the tun. Returns the tun's
// file (non-blocking), or -1 with `error` set.
int make_side(const char* address, bool server, std::string& error) {
  const int tun = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (tun < 0) return error = failure("cannot open /dev/net/tun"), -1;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, kDevice, IFNAMSIZ - 1);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;  // bare IP packets, no offloads: one MTU each
  const int sock = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  auto fail = [&](const std::string& what) {
    error = failure(what);
    ::close(tun);
    if (sock >= 0) ::close(sock);
    return -1;
  };
  if (::ioctl(tun, TUNSETIFF, &ifr) != 0) return fail("cannot make a tun device (needs CAP_NET_ADMIN)");
  if (sock < 0) return fail("socket");
  const sockaddr_in local = ipv4(address);
  const sockaddr_in mask = ipv4(kNetmask);
  std::memcpy(&ifr.ifr_addr, &local, sizeof local);
  if (::ioctl(sock, SIOCSIFADDR, &ifr) != 0) return fail("cannot address the tun device");
  std::memcpy(&ifr.ifr_netmask, &mask, sizeof mask);
  if (::ioctl(sock, SIOCSIFNETMASK, &ifr) != 0) return fail("cannot set the tun device's netmask");
  if (!set_flag_up(sock, kDevice)) return fail("cannot bring the tun device up");
  // /proc/sys/net is the calling thread's namespace's.
  if (!write_sysctl(std::string("/proc/sys/net/ipv4/conf/") + kDevice + "/route_localnet", "1")) {
    return fail("cannot set route_localnet on the tun device");
  }
  if (server) {
    if (!set_flag_up(sock, "lo")) return fail("cannot bring the server side's loopback up");
  } else {
    rtentry route{};
    const sockaddr_in net = ipv4("127.0.0.0");
    const sockaddr_in netmask = ipv4("255.0.0.0");
    std::memcpy(&route.rt_dst, &net, sizeof net);
    std::memcpy(&route.rt_genmask, &netmask, sizeof netmask);
    route.rt_flags = RTF_UP;
    route.rt_dev = const_cast<char*>(kDevice);
    if (::ioctl(sock, SIOCADDRT, &route) != 0) return fail("cannot route 127.0.0.0/8 out of the readers' tun");
  }
  ::close(sock);
  return tun;
}

// One direction: packets read from `from`, held until due, written to `to`.
struct Direction {
  struct Held {
    std::uint64_t due;
    std::vector<char> packet;
  };
  int from;
  int to;
  LinkBottleneck bottleneck;
  PacketLink::Counts& counts;
  std::deque<Held> line{};

  void take(std::vector<char>& scratch) {
    for (;;) {
      const ssize_t n = ::read(from, scratch.data(), scratch.size());
      if (n <= 0) return;  // EAGAIN: all read
      const std::uint64_t now = now_ns();
      const std::optional<std::uint64_t> due =
          line.size() < kMaxHeldPackets ? bottleneck.admit(now, static_cast<std::size_t>(n)) : std::nullopt;
      if (!due) {
        counts.dropped.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      line.push_back({*due, std::vector<char>(scratch.begin(), scratch.begin() + n)});
    }
  }

  void deliver(std::uint64_t now) {
    // Due times rise along the line: the link is first in, first out.
    while (!line.empty() && line.front().due <= now) {
      const std::vector<char>& packet = line.front().packet;
      // A packet the far stack refuses is lost, as on a wire.
      if (::write(to, packet.data(), packet.size()) == static_cast<ssize_t>(packet.size())) {
        counts.packets.fetch_add(1, std::memory_order_relaxed);
        counts.bytes.fetch_add(packet.size(), std::memory_order_relaxed);
      }
      line.pop_front();
    }
  }

  [[nodiscard]] std::uint64_t next_due() const { return line.empty() ? UINT64_MAX : line.front().due; }
};

}  // namespace

PacketLink::~PacketLink() {
  stop();
  for (int fd : {server_tun_, client_tun_, wake_fd_}) {
    if (fd >= 0) ::close(fd);
  }
}

std::string PacketLink::start() {
  std::string error;
  server_net_ = NetNamespace::make(error);
  if (server_net_.valid()) client_net_ = NetNamespace::make(error);
  if (!client_net_.valid()) return error;
  {
    InNamespace in(&server_net_);
    if (!in.entered()) return failure("cannot enter the server side's namespace");
    server_tun_ = make_side(kServerAddress, true, error);
  }
  if (server_tun_ < 0) return "server side: " + error;
  {
    InNamespace in(&client_net_);
    if (!in.entered()) return failure("cannot enter the readers' namespace");
    client_tun_ = make_side(kClientAddress, false, error);
  }
  if (client_tun_ < 0) return "readers' side: " + error;
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return failure("eventfd");
  thread_ = std::thread([this] { run(); });
  return "";
}

void PacketLink::stop() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    const std::uint64_t one = 1;
    static_cast<void>(::write(wake_fd_, &one, sizeof one));
  }
  if (thread_.joinable()) thread_.join();
}

void PacketLink::run() {
  const std::size_t queue = link_.queue == 0 ? kDefaultLinkQueue : link_.queue;
  Direction down{server_tun_, client_tun_, LinkBottleneck(link_.rate, link_.delay_ns, queue), down_};
  Direction up{client_tun_, server_tun_, LinkBottleneck(link_.rate, link_.delay_ns, queue), up_};
  std::vector<char> scratch(kMaxPacket);
  while (!stop_.load(std::memory_order_relaxed)) {
    down.take(scratch);
    up.take(scratch);
    const std::uint64_t now = now_ns();
    down.deliver(now);
    up.deliver(now);
    const std::uint64_t due = std::min(down.next_due(), up.next_due());
    pollfd fds[3] = {{server_tun_, POLLIN, 0}, {client_tun_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (due == UINT64_MAX) {
      ::ppoll(fds, 3, nullptr, nullptr);
    } else if (due > now) {
      const std::uint64_t wait = due - now;
      const timespec ts{static_cast<time_t>(wait / kNsPerSec), static_cast<long>(wait % kNsPerSec)};
      ::ppoll(fds, 3, &ts, nullptr);
    }
  }
}

}  // namespace sluice::bench
