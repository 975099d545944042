#include "replay_stream.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <nlohmann/json.hpp>

#include "clock.hpp"
#include "http_reply.hpp"
#include "net.hpp"
#include "stamp.hpp"

namespace sluice::bench {

namespace {

constexpr std::size_t kReadChunk = 256 * 1024;
constexpr std::size_t kMaxReply = 64 * 1024;

// Waits for `channel` to be readable until `deadline_ns` (bytes OpenSSL
// holds already are), then reads once into `out`. Returns the byte count,
// 0 on EOF, -1 on timeout or error.
ssize_t read_once(Channel& channel, std::uint64_t deadline_ns, std::string& out) {
  for (std::uint64_t now = now_ns(); now < deadline_ns; now = now_ns()) {
    if (!channel.buffered()) {
      pollfd p{channel.fd(), POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>((deadline_ns - now) / kNsPerMs) + 1);
      if (ready < 0 && errno != EINTR) return -1;
      if (ready <= 0) continue;
    }
    out.resize(kReadChunk);
    const ssize_t n = channel.read(out.data(), out.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return n;
  }
  return -1;
}

ssize_t read_once(int fd, std::uint64_t deadline_ns, std::string& out) {
  Channel clear;
  (void)clear.open(fd, nullptr);
  return read_once(clear, deadline_ns, out);
}

std::string id_of_reply(std::string_view body) {
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object() || !doc.contains("id")) return {};
  const nlohmann::json& id = doc["id"];
  return id.is_string() ? id.get<std::string>() : id.is_number_unsigned() ? std::to_string(id.get<std::uint64_t>()) : "";
}

}  // namespace

PublishAnswer publish_one(const io::Endpoint& server, const std::string& topic, std::string_view payload,
                          std::uint64_t deadline_ns, const TlsClient* tls) {
  PublishAnswer answer;
  const int fd = dial(server);
  if (fd < 0) return {.error = "cannot connect"};
  Channel channel;
  if (std::string why = channel.open(fd, tls); !why.empty()) {
    ::close(fd);
    return {.error = why};
  }
  const std::string request = "POST /pub/" + topic + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n" +
                              "Content-Length: " + std::to_string(payload.size()) + "\r\n\r\n" + std::string(payload);
  std::string in;
  std::string chunk;
  ReplyHead head;
  bool whole = false;
  if (channel.write_all(request)) {
    while (!whole && in.size() < kMaxReply && read_once(channel, deadline_ns, chunk) > 0) {
      in += chunk;
      const HeadStatus status = parse_reply_head(in, head);
      if (status == HeadStatus::error) break;
      whole = status == HeadStatus::ok && in.size() >= reply_size(head);
    }
  }
  ::close(fd);
  if (!whole) return {.error = "no whole reply to a publish"};
  answer.status = head.status;
  answer.body = in.substr(head.head_size, head.content_length);
  answer.id = id_of_reply(answer.body);
  return answer;
}

std::string wait_publishable(const io::Endpoint& server, const std::string& topic, std::uint64_t deadline_ns) {
  PublishAnswer answer;
  while (now_ns() < deadline_ns) {
    answer = publish_one(server, topic + "-probe", make_payload(kPayloadHeader, 0), deadline_ns);
    if (answer.status == 200) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "the publishing node did not take a publish in time (status " + std::to_string(answer.status) + ")";
}

bool server_generates(const io::Endpoint& server, const std::string& topic, const TlsClient* tls) {
  const PublishAnswer answer =
      publish_one(server, topic + "-probe", make_payload(kPayloadHeader, now_ns()), now_ns() + 5 * kNsPerSec, tls);
  return answer.body.find("\"generator\":true") != std::string::npos;
}

ReplayStream::~ReplayStream() {
  if (fd_ >= 0) ::close(fd_);
}

bool ReplayStream::open(const io::Endpoint& server, const std::string& topic, const std::string& last_id) {
  fd_ = dial(server);
  if (fd_ < 0) return fail("cannot connect");
  segments_before_ = segments_in(fd_);
  const std::string request = "GET /sse/" + topic + "?lastEventId=" + last_id +
                              " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n";
  requested_ns_ = now_ns();
  return write_all(fd_, request) || fail("cannot send the request");
}

bool ReplayStream::read_head(std::uint64_t deadline_ns) {
  ReplyHead head;
  while (error_.empty()) {
    const ssize_t n = read_once(fd_, deadline_ns, chunk_);
    if (n <= 0) return fail(n == 0 ? "server closed before the stream head" : "no stream head in time");
    head_ += chunk_;
    now_ = now_ns();
    const HeadStatus status = parse_reply_head(head_, head);
    if (status == HeadStatus::need_more) continue;
    if (status == HeadStatus::error || head.status != 200 || !head.content_type.starts_with("text/event-stream")) {
      return fail("bad stream head: " + head_.substr(0, head_.find('\r')));
    }
    // What came with the head is the start of the stream.
    if (scanner_.feed(std::string_view(head_).substr(head.head_size), *this) != ScanStatus::ok) {
      return fail("malformed stream: " + scanner_.bad_line());
    }
    return true;
  }
  return false;
}

bool ReplayStream::read_events(std::uint64_t want, std::uint64_t deadline_ns) {
  want_ = want;
  // Events that came with the head all came in that one read.
  if (events_ >= want && wanted_event_ns_ == 0) wanted_event_ns_ = now_;
  while (events_ < want && notice_.empty() && !ended_ && error_.empty()) {
    const ssize_t n = read_once(fd_, deadline_ns, chunk_);
    if (n < 0) return fail("timed out");
    if (n == 0) {
      ended_ = true;
      break;
    }
    now_ = now_ns();
    if (scanner_.feed(chunk_, *this) != ScanStatus::ok) return fail("malformed stream: " + scanner_.bad_line());
  }
  segments_ = segments_in(fd_) - segments_before_;
  return events_ >= want;
}

void ReplayStream::on_event(const SseEvent& event) {
  if (!event.has_id) {
    if (notice_.empty()) notice_ = event.data.empty() ? "(an event without id or data)" : std::string(event.data);
    return;
  }
  if (events_ == 0) {
    first_seq_ = event.id;
    first_event_ns_ = now_;
    first_data_.assign(event.data);
  } else if (event.id > last_seq_ + 1) {
    gaps_ += event.id - last_seq_ - 1;
  }
  last_seq_ = event.id;
  if (++events_ == want_) wanted_event_ns_ = now_;
}

bool ReplayStream::fail(std::string why) {
  if (error_.empty()) error_ = std::move(why);
  return false;
}

}  // namespace sluice::bench
