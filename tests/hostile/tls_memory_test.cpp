// A TLS client that sends the start of a record and never its end makes
// OpenSSL keep a record buffer for its connection (about 17 KiB) for as
// long as it likes. The connection charges it to its memory account as
// soon as it is held (before the read that may hold it): many such clients
// together meet limits.server_bytes and the ones past it are not read until
// there is room again (their own bytes wait in their sockets), the total
// stays under the cap, and the charge goes back when a connection closes.
// The record buffers are charged to the cap apart from the connection's
// share, which judges a request over TLS as over TCP. OpenSSL's calls alone play
// the client; the record's start is written past it, straight to the
// socket.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "eventually.hpp"
#include "io/socket.hpp"
#include "test_certs.hpp"
#include "test_client.hpp"
#include "tls_peer.hpp"
#include "transport/tls_stream.hpp"
#include "ws_test_client.hpp"

namespace sluice::test {
namespace {

using transport::test::ClientOptions;
using transport::test::OpenSslClient;

constexpr std::size_t kKiB = 1024;
// What ordinary charges may take of the server's cap in these tests: room
// for two record buffers (17 KiB each), not three.
constexpr std::size_t kServerBytes = 40 * kKiB;
// The cap's reserve for records read while the rest is full: room for one.
constexpr std::size_t kRecordReserve = 20 * kKiB;

// One loop serving TLS with `cert`, the whole server held to kServerBytes
// and the reserve beside it.
server::Config tls_config(const ServerCert& cert) {
  server::Config config;
  config.threads = 1;
  config.tls.cert_file = cert.cert_file;
  config.tls.key_file = cert.key_file;
  config.server_memory_bytes = static_cast<std::int64_t>(kServerBytes + kRecordReserve);
  config.tls_record_reserve_bytes = static_cast<std::int64_t>(kRecordReserve);
  return config;
}

// One loop serving TLS with `cert`, each connection held to `share` within a
// server roomy enough (4 MiB) that the share is what a test meets.
server::Config tls_share_config(const ServerCert& cert, std::size_t share) {
  server::Config config = tls_config(cert);
  config.server_memory_bytes = 4 << 20;
  config.connection.memory_bytes = static_cast<std::int64_t>(share);
  return config;
}

// Connected blocking (so the handshake's first bytes need no wait), then
// switched to non-blocking for the pumps.
int connect_nonblocking(std::uint16_t port) {
  const int fd = io::connect_tcp(io::Endpoint{"127.0.0.1", port});
  if (fd >= 0) io::set_nonblocking(fd, true);
  return fd < 0 ? -1 : fd;
}

// One TLS client, connected; by default it has sent the first 1,000 bytes
// of a 16,640-byte application-data record.
struct HalfRecordClient {
  HalfRecordClient(std::uint16_t port, const std::string& ca_file, bool half_record = true)
      : fd(connect_nonblocking(port)) {
    if (fd < 0) return;
    tls = std::make_unique<OpenSslClient>(fd, ClientOptions{.ca_file = ca_file, .alpn = {"http/1.1"}});
    connected = transport::test::pump([&] { return tls->connect_step() || tls->failed(); }, {fd}) && !tls->failed();
    if (!connected || !half_record) return;
    std::string partial = {0x17, 0x03, 0x03, 0x41, 0x00};
    partial += std::string(1000, 'p');
    sent = send_raw(partial);
  }
  ~HalfRecordClient() {
    tls.reset();
    if (fd >= 0) ::close(fd);
  }
  HalfRecordClient(const HalfRecordClient&) = delete;
  HalfRecordClient& operator=(const HalfRecordClient&) = delete;

  // Bytes straight to the socket, past OpenSSL.
  bool send_raw(const std::string& bytes) {
    return ::send(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size());
  }
  // A request (with `pad` bytes of header beside it) and its answer: the
  // server has read from this client.
  bool answered(std::size_t pad = 0) {
    const std::string padding = pad == 0 ? std::string() : "X-Pad: " + std::string(pad, 'x') + "\r\n";
    if (!tls->write_all("GET /none HTTP/1.1\r\nHost: 127.0.0.1\r\n" + padding + "\r\n")) return false;
    return transport::test::pump(
        [&] { return !tls->read_available() || tls->received().find("\r\n\r\n") != std::string::npos; }, {fd}) &&
           tls->received().starts_with("HTTP/1.1 404");
  }
  // The server closed the connection.
  bool closed_by_server() {
    char byte;
    const ssize_t n = ::recv(fd, &byte, 1, 0);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
  }

  int fd;
  std::unique_ptr<OpenSslClient> tls;
  bool connected = false;
  bool sent = false;
};

// Two clients each holding half a record, charged a record buffer apiece:
// with the tests' cap that leaves no room for a third. Empty (and the test
// failed) when either could not connect or the charges never showed.
std::vector<std::unique_ptr<HalfRecordClient>> fill_cap_with_half_records(RunningServer& server,
                                                                         const TestCerts& certs) {
  std::vector<std::unique_ptr<HalfRecordClient>> clients;
  for (int i = 0; i < 2; ++i) {
    clients.push_back(std::make_unique<HalfRecordClient>(server.port(), certs.ca_file()));
    if (!clients.back()->connected || !clients.back()->sent) {
      ADD_FAILURE() << "half-record client " << i << " did not connect and send";
      return {};
    }
  }
  if (!eventually([&] { return server.server().memory_stats().charged >= 2 * 17 * kKiB; })) {
    ADD_FAILURE() << "charged " << server.server().memory_stats().charged << " for two half records";
    return {};
  }
  return clients;
}

// Each test's own CA and a server certificate for localhost, made with the
// openssl CLI.
class TlsMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(certs.ok()) << certs.error();
    cert = certs.server("localhost");
    ASSERT_FALSE(cert.cert_file.empty()) << certs.error();
  }

  TestCerts certs;
  ServerCert cert;
};

TEST_F(TlsMemory, HalfRecordsAreChargedAndThoseBeyondTheServersCapWaitToBeRead) {
  RunningServer server(tls_config(cert));

  // A client connected (and served once) before the cap fills.
  auto late = std::make_unique<HalfRecordClient>(server.port(), certs.ca_file(), false);
  ASSERT_TRUE(late->connected);
  ASSERT_TRUE(late->answered());

  std::vector<std::unique_ptr<HalfRecordClient>> clients;
  for (int i = 0; i < 2; ++i) {
    clients.push_back(std::make_unique<HalfRecordClient>(server.port(), certs.ca_file()));
    ASSERT_TRUE(clients.back()->connected && clients.back()->sent) << i;
    const std::size_t expected = (i + 1) * 17 * kKiB;
    ASSERT_TRUE(eventually([&] { return server.server().memory_stats().charged >= expected; }))
        << "charged " << server.server().memory_stats().charged << " after " << i + 1 << " half records";
  }
  // Now the late client sends the start of a record. A read that may
  // leave it held needs room for a record buffer, and the cap has none
  // left: that is no fault of this client's, so it is not closed but not
  // read either (its bytes wait in its socket); nothing is charged for it.
  const std::size_t two_held = server.server().memory_stats().charged;
  ASSERT_TRUE(late->send_raw(std::string{0x17, 0x03, 0x03, 0x00, 0x20} + std::string(16, 'x')));
  ASSERT_TRUE(eventually([&] { return server.server().memory_stats().refused_by_server >= 1; }));
  EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  EXPECT_FALSE(late->closed_by_server()) << "a client was closed because the server's cap was full";
  // Once one of the two leaves, the late client is read without a byte
  // more from it: its partial record is held, and charged, in the place
  // of the one that left.
  clients.erase(clients.begin());
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == two_held; }))
      << "the waiting read was not tried again: charged " << server.server().memory_stats().charged;
  EXPECT_FALSE(late->closed_by_server());
  EXPECT_FALSE(clients[0]->closed_by_server());
  clients.clear();
  late.reset();
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged after close: " << server.server().memory_stats().charged;
}

// The head of a POST of `body` bytes to a path with no route: the body is
// read whole, then answered 404.
std::string post_head(std::size_t body) {
  return "POST /none HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(body) + "\r\n\r\n";
}

// The status a POST of `body` bytes gets over plain TCP.
int tcp_post_status(std::uint16_t port, std::size_t body) {
  TestClient client(port);
  client.send(post_head(body) + std::string(body, 'b'));
  return read_reply(client).status;
}

// What a POST of `body` bytes gets over TLS, its body written `split`
// bytes at a time (a record each, so that the server's reads land inside
// records at many points).
std::string tls_post_reply(std::uint16_t port, const std::string& ca_file, std::size_t body, std::size_t split) {
  HalfRecordClient client(port, ca_file, false);
  if (!client.connected || !client.tls->write_all(post_head(body))) return "no connection";
  const std::string bytes(body, 'b');
  for (std::size_t at = 0; at < body; at += split) {
    if (!client.tls->write_all(bytes.substr(at, split))) break;
  }
  const std::string& got = client.tls->received();
  (void)transport::test::pump(
      [&] { return !client.tls->read_available() || got.find("\r\n\r\n") != std::string::npos; }, {client.fd});
  return got;
}

// A connection's share (limits.connection_bytes) judges what the request
// holds, the same over TLS as over TCP: the record buffer OpenSSL keeps
// for a record partly read is charged to the server's cap apart. The
// largest body a 100 KiB share lets through over TCP (found by halving)
// passes over TLS however its records are cut, and one byte more gets the
// same 413 on both. Before, over TLS, a read that landed inside a record
// near the end of that body needed 17 KiB of the share beside the input
// buffer (96 KiB charged) and got the 413.
TEST_F(TlsMemory, TheLargestBodyATcpShareTakesPassesOverTlsAndOneByteMoreGets413OnBoth) {
  std::signal(SIGPIPE, SIG_IGN);
  server::Config tls = tls_share_config(cert, 100 * kKiB);
  server::Config tcp = tls;
  tcp.tls = {};
  RunningServer tls_server(tls);
  RunningServer tcp_server(tcp);

  // Passes at `fits`, refused at `refused`.
  std::size_t fits = 0;
  std::size_t refused = 512 * kKiB;
  ASSERT_EQ(tcp_post_status(tcp_server.port(), refused), 413);
  while (refused - fits > 1) {
    const std::size_t middle = fits + (refused - fits) / 2;
    const int status = tcp_post_status(tcp_server.port(), middle);
    ASSERT_NE(status, 0) << middle;
    (status == 413 ? refused : fits) = middle;
  }
  const int passed = tcp_post_status(tcp_server.port(), fits);
  ASSERT_NE(passed, 413);
  ASSERT_GT(fits, 64 * kKiB) << "the share let no large body through: the test shows nothing";

  for (const std::size_t split : {997u, 4093u, 9999u, 16384u}) {
    const std::string fit = tls_post_reply(tls_server.port(), certs.ca_file(), fits, split);
    EXPECT_TRUE(fit.starts_with("HTTP/1.1 " + std::to_string(passed))) << fits << " bytes in " << split << ": " << fit;
    const std::string over = tls_post_reply(tls_server.port(), certs.ca_file(), fits + 1, split);
    EXPECT_TRUE(over.starts_with("HTTP/1.1 413")) << fits + 1 << " bytes in " << split << ": " << over;
    EXPECT_NE(over.find("request over this connection's memory (limits.connection_bytes)"), std::string::npos)
        << over;
  }
  EXPECT_EQ(tls_server.server().stats().memory_closes, 0u);
}

// What the server answers a WebSocket publisher's message of `size` bytes
// followed by a ping: "pong" when the message passed, else "close CODE
// REASON".
std::string ws_outcome(const ws::ServerFrame& frame) {
  if (frame.opcode == ws::kPong) return "pong";
  if (frame.opcode != ws::kClose) return "opcode " + std::to_string(frame.opcode);
  return "close " + std::to_string(frame.close_code()) + " " + frame.payload.substr(std::min<std::size_t>(2, frame.payload.size()));
}

std::string tcp_message_outcome(std::uint16_t port, std::size_t size) {
  ws::WsTestClient client(port);
  if (!client.open("/pub/tls-ws")) return "no upgrade";
  client.send({.payload = std::string(size, 'm')});
  client.send({.opcode = ws::kPing, .payload = "p"});
  const std::optional<ws::ServerFrame> frame = client.read_frame();
  return frame ? ws_outcome(*frame) : "nothing";
}

// The same over TLS, the frame written `split` bytes at a time.
std::string tls_message_outcome(std::uint16_t port, const std::string& ca_file, std::size_t size, std::size_t split) {
  HalfRecordClient client(port, ca_file, false);
  std::string& got = client.tls->received();
  if (!client.connected ||
      !client.tls->write_all("GET /pub/tls-ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                             "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n") ||
      !transport::test::pump(
          [&] { return !client.tls->read_available() || got.find("\r\n\r\n") != std::string::npos; },
          {client.fd}) ||
      !got.starts_with("HTTP/1.1 101")) {
    return "no upgrade";
  }
  got.erase(0, got.find("\r\n\r\n") + 4);
  const std::string frame = ws::wire({.payload = std::string(size, 'm')}) + ws::wire({.opcode = ws::kPing, .payload = "p"});
  for (std::size_t at = 0; at < frame.size(); at += split) {
    if (!client.tls->write_all(frame.substr(at, split))) break;
  }
  // A server frame of a short length: the opcode byte, the length, the payload.
  const auto whole = [&] { return got.size() >= 2 && got.size() >= 2 + static_cast<std::size_t>(got[1] & 0x7f); };
  (void)transport::test::pump([&] { return !client.tls->read_available() || whole(); }, {client.fd});
  if (!whole()) return "nothing";
  ws::ServerFrame server_frame;
  server_frame.opcode = static_cast<std::uint8_t>(got[0] & 0x0f);
  server_frame.payload = got.substr(2, static_cast<std::size_t>(got[1] & 0x7f));
  return ws_outcome(server_frame);
}

// The same for a WebSocket message: the largest a 100 KiB share lets
// through over TCP passes over TLS, and one byte more is closed 1009 on
// both. Before, a read inside a record near its end met the share.
TEST_F(TlsMemory, TheLargestMessageATcpShareTakesPassesOverTlsAndOneByteMoreIsClosed1009OnBoth) {
  std::signal(SIGPIPE, SIG_IGN);
  server::Config tls = tls_share_config(cert, 100 * kKiB);
  server::Config tcp = tls;
  tcp.tls = {};
  RunningServer tls_server(tls);
  RunningServer tcp_server(tcp);

  const std::string refusal = "close 1009 message over this connection's memory (limits.connection_bytes)";
  std::size_t fits = 0;
  std::size_t refused = 512 * kKiB;
  ASSERT_EQ(tcp_message_outcome(tcp_server.port(), refused), refusal);
  while (refused - fits > 1) {
    const std::size_t middle = fits + (refused - fits) / 2;
    const std::string outcome = tcp_message_outcome(tcp_server.port(), middle);
    ASSERT_TRUE(outcome == "pong" || outcome == refusal) << middle << ": " << outcome;
    (outcome == refusal ? refused : fits) = middle;
  }
  ASSERT_GT(fits, 16 * kKiB) << "the share let no large message through: the test shows nothing";

  for (const std::size_t split : {997u, 4093u, 9999u, 16384u}) {
    EXPECT_EQ(tls_message_outcome(tls_server.port(), certs.ca_file(), fits, split), "pong")
        << fits << " bytes in " << split;
    EXPECT_EQ(tls_message_outcome(tls_server.port(), certs.ca_file(), fits + 1, split), refusal)
        << fits + 1 << " bytes in " << split;
  }
  EXPECT_EQ(tls_server.server().stats().memory_closes, 0u);
}

// While the server's cap is full, a read that leaves nothing held is made
// all the same: a request that arrives in whole records (the bytes that
// could end a message, open a window, or close) is read and answered
// without a reservation, as OpenSSL gives its read buffer back within the
// call. The cap stays full of the two half records throughout.
TEST_F(TlsMemory, WholeRecordsAreReadWhileTheServersCapIsFull) {
  RunningServer server(tls_config(cert));

  auto late = std::make_unique<HalfRecordClient>(server.port(), certs.ca_file(), false);
  ASSERT_TRUE(late->connected);
  const std::vector<std::unique_ptr<HalfRecordClient>> clients = fill_cap_with_half_records(server, certs);
  ASSERT_EQ(clients.size(), 2u);
  const server::MemoryStats full = server.server().memory_stats();
  ASSERT_EQ(full.tls_record_reserve, kRecordReserve);
  ASSERT_GT(full.charged + transport::kRecordBufferEstimate, kServerBytes) << "the cap has room: the test shows nothing";
  EXPECT_TRUE(late->answered()) << "the request was not read";
  // The read was made: no refusal is counted for it
  // (sluice_connection_memory_refusals_total counts reads that waited).
  EXPECT_EQ(server.server().memory_stats().refused_by_server, full.refused_by_server);
  EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  EXPECT_FALSE(clients[0]->closed_by_server());
  EXPECT_FALSE(clients[1]->closed_by_server());
}

// The same with a record longer than a read's turn (receive.turn_bytes at
// its least, 1 KiB): the read is widened to the record, which the input
// buffer has room for. Held to the turn, the record never fitted, and the
// read waited, retried at every sweep, for as long as the cap stayed full.
TEST_F(TlsMemory, ARecordLongerThanAReadsTurnIsReadWhileTheServersCapIsFull) {
  server::Config config = tls_config(cert);
  config.connection.receive_turn = 1024;
  RunningServer server(config);

  auto late = std::make_unique<HalfRecordClient>(server.port(), certs.ca_file(), false);
  ASSERT_TRUE(late->connected);
  const std::vector<std::unique_ptr<HalfRecordClient>> clients = fill_cap_with_half_records(server, certs);
  ASSERT_EQ(clients.size(), 2u);
  ASSERT_GT(server.server().memory_stats().charged + transport::kRecordBufferEstimate, kServerBytes);
  EXPECT_TRUE(late->answered(3000)) << "a record of 3 KiB was not read with 1 KiB turns";
  EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  EXPECT_FALSE(clients[0]->closed_by_server());
}

// Two pipelined requests, cut where they are sent: the head of a POST
// alone, then its body (the POST whole is 100 bytes short of the input
// buffer's resting 32 KiB, so it never needs a charged byte) and a GET of
// 400 bytes after it. Over TLS the second piece leaves in records of
// 16 KiB, and the one that ends the body also starts the GET: after the
// head and one record the input buffer has less spare room than that
// record, and no room to grow with the server's cap full.
struct PipelinedPair {
  PipelinedPair() {
    const std::size_t body = 32 * kKiB - 100 - post_head(10000).size();  // five digits, as this length has
    head = post_head(body);
    const std::string get = "GET /none HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    rest = std::string(body, 'b') + get + "X-Pad: " +
           std::string(400 - get.size() - 11, 'x') + "\r\n\r\n";
  }
  std::string head;
  std::string rest;
};

// What the two requests are answered, over plain TCP, on a server whose
// cap an unfinished body fills first.
std::string tcp_pair_answers(const server::Config& config) {
  RunningServer server(config);
  TestClient filler(server.port());
  filler.send(post_head(100 * kKiB) + std::string(40 * kKiB, 'f'));
  if (!eventually([&] { return server.server().memory_stats().charged + 32 * kKiB > kServerBytes; })) return "cap not full";
  const PipelinedPair pair;
  TestClient client(server.port());
  client.send(pair.head);
  client.send(pair.rest);
  const int first = read_reply(client).status;
  const int second = read_reply(client).status;
  return std::to_string(first) + " " + std::to_string(second);
}

// The status of each reply at the front of `received` ("404 404"), once
// `count` heads are there.
std::string statuses(const std::string& received) {
  std::string out;
  for (std::size_t at = received.find("HTTP/1.1 "); at != std::string::npos; at = received.find("HTTP/1.1 ", at + 1)) {
    out += (out.empty() ? "" : " ") + received.substr(at + 9, 3);
  }
  return out;
}

// With the server's cap full, a request whose input buffer has spare room
// shorter than the next record is read as over TCP, where the read takes
// the spare room's worth and the rest waits in the socket: over TLS the
// record is decrypted whole and the part past the spare room stays in
// OpenSSL's read buffer, one record's worth, charged to the cap's reserve
// for records (which nothing else may take), and read out at the next
// read. Before, the read waited for the cap (or the request's deadline),
// and the POST and the GET behind it were not answered.
TEST_F(TlsMemory, ARecordLongerThanTheInputsSpareRoomIsReadWhileTheServersCapIsFullAsOverTcp) {
  server::Config tcp = tls_config(cert);
  tcp.tls = {};
  tcp.server_memory_bytes = static_cast<std::int64_t>(kServerBytes);
  ASSERT_EQ(tcp_pair_answers(tcp), "404 404") << "over TCP";

  RunningServer server(tls_config(cert));
  auto late = std::make_unique<HalfRecordClient>(server.port(), certs.ca_file(), false);
  ASSERT_TRUE(late->connected);
  const std::vector<std::unique_ptr<HalfRecordClient>> clients = fill_cap_with_half_records(server, certs);
  ASSERT_EQ(clients.size(), 2u);
  const server::MemoryStats full = server.server().memory_stats();
  ASSERT_GT(full.charged + transport::kRecordBufferEstimate, kServerBytes) << "the cap has room: the test shows nothing";

  const PipelinedPair pair;
  ASSERT_TRUE(late->tls->write_all(pair.head));
  ASSERT_TRUE(late->tls->write_all(pair.rest));
  const std::string& got = late->tls->received();
  (void)transport::test::pump([&] { return !late->tls->read_available() || statuses(got).size() >= 7; }, {late->fd});
  EXPECT_EQ(statuses(got), "404 404") << "over TLS: " << got.substr(0, 200);
  // The record's rest was read out: its charge is given back, and the cap
  // holds the two half records again.
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == full.charged; }))
      << "charged " << server.server().memory_stats().charged << ", before " << full.charged;
  EXPECT_EQ(server.server().memory_stats().refused_by_server, full.refused_by_server);
  EXPECT_EQ(server.server().stats().memory_closes, 0u);
  EXPECT_FALSE(clients[0]->closed_by_server());
  EXPECT_FALSE(clients[1]->closed_by_server());
}

// The reserve bounds those records too: with no room left in it (here a
// reserve of one byte, which no record fits), the same read waits for the
// cap as any other, the count never passes limits.server_bytes, and the
// requests are answered once the clients filling the cap leave.
TEST_F(TlsMemory, WithNoRoomInTheReserveARecordsRestWaitsForTheCapWhichItNeverPasses) {
  server::Config config = tls_config(cert);
  config.server_memory_bytes = static_cast<std::int64_t>(kServerBytes + 1);
  config.tls_record_reserve_bytes = 1;
  RunningServer server(config);
  auto late = std::make_unique<HalfRecordClient>(server.port(), certs.ca_file(), false);
  ASSERT_TRUE(late->connected);
  std::vector<std::unique_ptr<HalfRecordClient>> clients = fill_cap_with_half_records(server, certs);
  ASSERT_EQ(clients.size(), 2u);
  const server::MemoryStats full = server.server().memory_stats();

  const PipelinedPair pair;
  ASSERT_TRUE(late->tls->write_all(pair.head));
  ASSERT_TRUE(late->tls->write_all(pair.rest));
  ASSERT_TRUE(eventually([&] { return server.server().memory_stats().refused_by_server > full.refused_by_server; }))
      << "the read did not wait for the cap";
  EXPECT_LE(server.server().memory_stats().charged, kServerBytes + 1);

  clients.clear();
  const std::string& got = late->tls->received();
  (void)transport::test::pump([&] { return !late->tls->read_available() || statuses(got).size() >= 7; }, {late->fd});
  EXPECT_EQ(statuses(got), "404 404") << got.substr(0, 200);
  EXPECT_EQ(server.server().stats().memory_closes, 0u);
}

// A TLS 1.3 client may ask for a KeyUpdate, and the server must answer
// with one of its own. OpenSSL keeps that answer as one flag and sends it
// with the next record it writes, however many requests came: a client
// that floods them, reading nothing, makes the server hold nothing (each
// request costs a key derivation, as a record costs its decryption), and
// is answered as before. Renegotiation (TLS 1.2) is refused outright
// (SSL_OP_NO_RENEGOTIATION).
TEST_F(TlsMemory, AKeyUpdateFloodHoldsNothingAndTheConnectionIsAnsweredAsBefore) {
  server::Config config = tls_config(cert);
  config.tcp_send_buffer = 4096;
  RunningServer server(config);

  HalfRecordClient client(server.port(), certs.ca_file(), false);
  ASSERT_TRUE(client.connected);
  SSL* ssl = client.tls->ssl();
  ASSERT_EQ(SSL_version(ssl), TLS1_3_VERSION);
  int sent = 0;
  while (sent < 1000 && SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1 && SSL_do_handshake(ssl) == 1) ++sent;
  ASSERT_EQ(sent, 1000);
  EXPECT_TRUE(client.answered()) << "the connection was not answered after the flood";
  // The answer's record may have waited for the socket (the server's
  // answers to the requests fill it): its charge goes back once it is out.
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged " << server.server().memory_stats().charged;
  EXPECT_FALSE(client.closed_by_server());
}

// A reader that does not read leaves a record waiting for its socket:
// OpenSSL's write buffer and the staging buffer (33 KiB) are charged while
// it waits. Two such readers against a cap that holds one: the second's
// record finds no room, and that reader is closed for memory (counted as
// such, not as a protocol error), while the first keeps its record.
TEST_F(TlsMemory, ARecordWaitingForAReaderTheServerCannotHoldClosesItForMemory) {
  server::Config config = tls_config(cert);
  config.tcp_send_buffer = 4096;
  config.connection.send.max_bytes = 8 << 20;  // the records, not the budget, stop the data here
  RunningServer server(config);

  std::vector<std::unique_ptr<HalfRecordClient>> readers;
  for (int i = 0; i < 2; ++i) {
    readers.push_back(std::make_unique<HalfRecordClient>(server.port(), certs.ca_file(), false));
    ASSERT_TRUE(readers.back()->connected) << i;
    ASSERT_TRUE(readers.back()->tls->write_all("GET /sse/stuck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  }
  ASSERT_TRUE(eventually([&] { return server.server().stats().streams == 2; }));
  // 800 KB: far more than both sockets take, far less than the send budget.
  const std::string event(8000, 'e');
  for (int i = 0; i < 100; ++i) (void)server.server().publish("stuck", event);
  ASSERT_TRUE(eventually([&] { return server.server().stats().memory_closes == 1; }))
      << "charged " << server.server().memory_stats().charged;
  EXPECT_EQ(server.server().stats().protocol_errors, 0u);
  EXPECT_GE(server.server().memory_stats().refused_by_server, 1u);
  EXPECT_LE(server.server().memory_stats().charged, kServerBytes);
  // One of the two is gone, the other still holds its record.
  EXPECT_TRUE(eventually([&] { return server.server().stats().streams == 1; }));
  EXPECT_GE(server.server().memory_stats().charged, 33 * kKiB);
  readers.clear();
  EXPECT_TRUE(eventually([&] { return server.server().memory_stats().charged == 0; }))
      << "charged after close: " << server.server().memory_stats().charged;
}

}  // namespace
}  // namespace sluice::test
