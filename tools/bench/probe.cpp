#include "probe.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.hpp"
#include "http_reply.hpp"
#include "net.hpp"

namespace sluice::bench {

namespace {

bool read_head(int fd, std::uint64_t deadline, ReplyHead& head) {
  std::string in;
  char chunk[4096];
  for (std::uint64_t now = now_ns(); now < deadline; now = now_ns()) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>((deadline - now) / kNsPerMs) + 1) <= 0) return false;
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    in.append(chunk, static_cast<std::size_t>(n));
    const HeadStatus status = parse_reply_head(in, head);
    if (status != HeadStatus::need_more) return status == HeadStatus::ok;
  }
  return false;
}

}  // namespace

ProbeResult probe(const io::Endpoint& server, std::string_view request, std::uint64_t timeout_ns) {
  const std::uint64_t start = now_ns();
  const int fd = dial(server);
  ProbeResult result;
  ReplyHead head;
  if (fd >= 0 && write_all(fd, request) && read_head(fd, start + timeout_ns, head)) {
    result.status = head.status;
    result.ok = head.status / 100 == 2 || head.status == 101;
  }
  result.ns = now_ns() - start;
  if (fd >= 0) ::close(fd);
  return result;
}

}  // namespace sluice::bench
