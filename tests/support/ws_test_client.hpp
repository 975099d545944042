// Owns: WsTestClient, a blocking raw-socket WebSocket client for protocol
// tests, the frames it sends and reads, and WsCase, one case of the
// conformance suite (after the Autobahn|Testsuite case groups): a scripted
// exchange with the echo endpoint.
//
// The client can put on the wire anything a peer could send: masked or
// unmasked frames, any opcode, RSV bits, fragments, length fields that lie,
// raw bytes. It reads the server's frames back exactly as they were sent,
// every wait bounded by a deadline. permessage-deflate is done here with
// zlib directly rather than with proto::ws, so the server's codec is
// checked against an independent one.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "test_client.hpp"

struct z_stream_s;

namespace sluice::test::ws {

inline constexpr std::uint8_t kContinuation = 0x0;
inline constexpr std::uint8_t kText = 0x1;
inline constexpr std::uint8_t kBinary = 0x2;
inline constexpr std::uint8_t kClose = 0x8;
inline constexpr std::uint8_t kPing = 0x9;
inline constexpr std::uint8_t kPong = 0xA;

inline constexpr std::uint8_t kRsv1 = 0x40;
inline constexpr std::uint8_t kRsv2 = 0x20;
inline constexpr std::uint8_t kRsv3 = 0x10;

// One frame as it goes on the wire. The defaults make a final, masked text
// frame; every field can be set to break a rule.
struct WireFrame {
  std::uint8_t opcode = kText;  // any 4-bit value, the reserved ones too
  std::string payload;
  bool fin = true;
  std::uint8_t rsv = 0;  // any of kRsv1 | kRsv2 | kRsv3
  bool masked = true;
  std::optional<std::uint64_t> length;  // a length field that differs from payload.size()
};

// The bytes of `frame`, masked with a fresh CSPRNG key when it is masked.
std::string wire(const WireFrame& frame);
// A close frame's payload: the code in network order, then the reason.
std::string close_payload(std::uint16_t code, std::string_view reason = {});

// A frame as the server sent it.
struct ServerFrame {
  std::uint8_t opcode = 0;
  bool fin = false;
  std::uint8_t rsv = 0;
  bool masked = false;
  std::string payload;

  // A close frame's code; 1005 (no status) when it carries none.
  [[nodiscard]] int close_code() const;
};

// permessage-deflate on the client's side (RFC 7692 §7.2.1): each message
// sync-flushed with the 00 00 ff ff tail removed. With context takeover the
// window carries over from message to message.
class ClientDeflater {
 public:
  explicit ClientDeflater(int window_bits = 15, bool context_takeover = true);
  ~ClientDeflater();
  ClientDeflater(const ClientDeflater&) = delete;
  ClientDeflater& operator=(const ClientDeflater&) = delete;

  std::string compress(std::string_view message);

 private:
  std::unique_ptr<z_stream_s> stream_;
  bool context_takeover_;
};

// Inflates one compressed message from the server (which never takes its
// context over). nullopt when it is not a valid deflate stream.
std::optional<std::string> inflate_message(std::string_view payload);

struct UpgradeRequest {
  std::string path = "/ws-echo";
  std::string version = "13";
  std::string upgrade = "websocket";
  std::string connection = "Upgrade";
  bool send_key = true;
  std::string key;  // empty: a fresh valid key
  // Sent only when not empty.
  std::string extensions;
  std::string protocols;
  std::string origin;
  std::string extra_headers;  // whole lines, each ending in CRLF
};

struct UpgradeReply {
  int status = 0;  // 0: no reply head in time
  std::string head;
  bool accept_valid = false;  // Sec-WebSocket-Accept answers the key sent (RFC 6455 §4.2.2)
  // The value of header `name` (case-insensitive), nullopt when absent.
  [[nodiscard]] std::optional<std::string> header(std::string_view name) const;
};

class WsTestClient {
 public:
  explicit WsTestClient(std::uint16_t port, int receive_buffer = 0);

  // Sends the upgrade request and reads the reply head; bytes behind it stay
  // buffered for read_frame().
  UpgradeReply upgrade(const UpgradeRequest& request = {}, std::chrono::milliseconds limit = 10s);
  // upgrade() to `path`; true on 101.
  bool open(std::string_view path = "/ws-echo");

  void send(const WireFrame& frame) { socket_.send(wire(frame)); }
  void send_raw(std::string_view bytes) { socket_.send(bytes); }

  // The next frame; nullopt on EOF or when `limit` passes.
  std::optional<ServerFrame> read_frame(std::chrono::milliseconds limit = 10s);
  // The next data frame, answering pings on the way; a message with RSV1 is
  // inflated. nullopt on EOF, timeout or any other control frame.
  std::optional<ServerFrame> read_message(std::chrono::milliseconds limit = 10s);
  // Reads until the server's close frame and returns its code: 0 when the
  // connection ended (or `limit` passed) without one.
  int read_close(std::chrono::milliseconds limit = 10s);
  // Reads, discarding, until EOF; false when `limit` passes first.
  bool wait_closed(std::chrono::milliseconds limit = 10s) { return socket_.read_until_closed(limit); }
  // True once the server has shut its side, found without reading a byte.
  bool hung_up(std::chrono::milliseconds limit);
  // Ends the connection with a TCP reset, as a crashed peer would.
  void reset();

  TestClient& socket() { return socket_; }

 private:
  TestClient socket_;
};

// A frame the server must send in a scripted exchange.
struct Reply {
  std::uint8_t opcode = kText;
  std::string payload;      // messages after inflating; pings and pongs as sent
  int close_code = 0;       // close frames: the code
  bool compressed = false;  // the frame must carry RSV1
};

inline Reply message(std::uint8_t opcode, std::string payload, bool compressed = false) {
  return {opcode, std::move(payload), 0, compressed};
}
inline Reply pong(std::string payload) { return {kPong, std::move(payload)}; }
inline Reply closing(int code) { return {kClose, {}, code}; }

struct ExpectedHeader {
  std::string name;
  std::string value;  // empty: the header must be absent
};

// A scripted exchange: an upgrade, the bytes sent after it, and what the
// server must answer, frame by frame. An exchange whose last reply is not a
// close ends with the client's close 1000, which must be echoed; every
// exchange ends with the server closing the TCP connection.
struct Exchange {
  UpgradeRequest upgrade;
  int status = 101;
  std::vector<ExpectedHeader> headers;
  std::vector<std::string> sends;  // each goes in its own send()
  std::vector<Reply> replies;
};

// An exchange that sends `frames`, each in its own send(), and expects `replies`.
Exchange script(const std::vector<WireFrame>& frames, std::vector<Reply> replies);
// `e` with everything it sends cut into sends of `chop` bytes, so the server
// meets every frame boundary in the middle of a read.
Exchange chopped(Exchange e, std::size_t chop);

// One conformance case. gtest copies its parameters several times and every
// test process registers every case, so the exchange (some carry megabytes)
// is made only when the case runs.
struct WsCase {
  std::string name;  // a gtest name: letters, digits and _
  std::function<Exchange()> make;
};

// The case names and parameters gtest prints.
inline std::string case_name(const testing::TestParamInfo<WsCase>& info) { return info.param.name; }
void PrintTo(const WsCase& c, std::ostream* out);

// Runs `e` against the server on `port`.
testing::AssertionResult run_exchange(std::uint16_t port, const Exchange& e);

inline constexpr std::size_t kMaxMessage = std::size_t{1} << 20;
inline constexpr std::string_view kAllowedOrigin = "https://app.example";
inline constexpr std::string_view kSubprotocols = "chat.v2, chat.v1";

// The fixture of every conformance group; ws_conformance_test.cpp counts its
// tests. Each group runs against a server started for it and stopped after
// it (before the process exits, so that OpenSSL's per-thread state is freed
// while OpenSSL is still there): /ws-echo on, ws.max_message kMaxMessage,
// origins restricted to kAllowedOrigin, subprotocols kSubprotocols.
class WsConformance : public testing::TestWithParam<WsCase> {
 public:
  static void SetUpTestSuite();
  static void TearDownTestSuite();

 protected:
  static std::uint16_t port();
};

}  // namespace sluice::test::ws
