// TlsTransport, the Transport of a connection on sluiced's TLS port,
// against a client made of OpenSSL calls alone: reads move the handshake
// on and then carry the request, a flush of many small frames leaves as
// full records, TLS 1.3 only refuses a TLS 1.2 client, plain HTTP fails
// the first read, shutdown_write() sends close_notify, a FIN without
// close_notify leaves the replies' way open, and a read takes one record
// that carries no data at a time.
#include "transport/tls_transport.hpp"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <linux/sockios.h>
#include <openssl/tls1.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "arrival_stamps_on.hpp"
#include "io/arrival_stamp.hpp"
#include "test_certs.hpp"
#include "tls_peer.hpp"

namespace sluice::transport::test {
namespace {

class TlsTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(certs_.ok()) << certs_.error();
    cert_ = certs_.server("localhost");
    ASSERT_FALSE(cert_.cert_file.empty()) << certs_.error();
  }
  TlsContext context(bool tls13_only = false) {
    std::string error;
    TlsContext made = make_server_context({cert_.cert_file, cert_.key_file, ""},
                                          {.offer_h2 = false, .tls13_only = tls13_only}, error);
    EXPECT_TRUE(made) << error;
    return made;
  }
  ClientOptions verified() { return {.ca_file = certs_.ca_file(), .alpn = {"h2", "http/1.1"}}; }
  // Handshakes `server` and `client` by the server's reads alone.
  static bool connect(TlsTransport& server, OpenSslClient& client, int client_fd) {
    bool connected = false;
    return pump(
               [&] {
                 connected = connected || client.connect_step();
                 char chunk[64];
                 const long n = server.read(chunk, sizeof chunk);
                 return (connected && !server.handshaking()) || client.failed() || (n < 0 && n != -EAGAIN);
               },
               {server.fd(), client_fd}) &&
           connected && !server.handshaking();
  }

  sluice::test::TestCerts certs_;
  sluice::test::ServerCert cert_;
};

// Reads from `server` until `want` bytes came, or a failure (returned).
long read_request(TlsTransport& server, OpenSslClient& client, std::string& got, std::size_t want, int client_fd) {
  long last = 0;
  pump(
      [&] {
        client.connect_step();
        char chunk[4096];
        last = server.read(chunk, sizeof chunk);
        if (last > 0) got.append(chunk, static_cast<std::size_t>(last));
        return got.size() >= want || (last < 0 && last != -EAGAIN) || last == 0;
      },
      {server.fd(), client_fd});
  return last;
}

TEST_F(TlsTransportTest, ReadsDriveTheHandshakeThenCarryTheRequestAndAFlushLeavesAsFullRecords) {
  TcpPair pair;
  TlsTransport server(context(), ::dup(pair.server));
  OpenSslClient client(pair.client, verified());
  EXPECT_TRUE(server.handshaking());
  // Only reads: the transport answers the client's hello from read().
  bool connected = false;
  ASSERT_TRUE(pump(
      [&] {
        connected = connected || client.connect_step();
        char chunk[64];
        const long n = server.read(chunk, sizeof chunk);
        return (connected && !server.handshaking()) || client.failed() || (n < 0 && n != -EAGAIN);
      },
      {server.fd(), pair.client}));
  ASSERT_TRUE(connected) << client.error() << " / " << server.stream().error();
  EXPECT_FALSE(server.handshaking());
  ASSERT_TRUE(client.write_all("GET /sse/a HTTP/1.1\r\n\r\n"));
  std::string request;
  read_request(server, client, request, 23, pair.client);
  EXPECT_EQ(request, "GET /sse/a HTTP/1.1\r\n\r\n");
  EXPECT_EQ(client.alpn(), "http/1.1");  // h2 is not offered until sluiced serves it

  // 1,000 events of 64 bytes, in two flushes of 500 iovecs each.
  const std::string event(64, 'e');
  std::vector<iovec> iov(500, iovec{const_cast<char*>(event.data()), event.size()});
  long taken = 0;
  for (int half = 0; half < 2; ++half) taken += server.writev(iov.data(), static_cast<int>(iov.size()));
  EXPECT_EQ(taken, 64000);
  EXPECT_FALSE(server.holds_output());
  EXPECT_EQ(server.stream().records_written(), 4u);  // each flush of 32,000 bytes: 16,384 + 15,616
  ASSERT_TRUE(pump([&] { return !client.read_available() || client.received().size() >= 64000; }, {pair.client}));
  EXPECT_EQ(client.received(), std::string(64000, 'e'));

  EXPECT_EQ(server.shutdown_write(), 0);
  ASSERT_TRUE(pump([&] { return !client.read_available(); }, {pair.client}));
  EXPECT_TRUE(client.eof());
}

// A transport made for the admin listener chooses http/1.1 by ALPN where
// its context offers h2 (the admin API's routes are HTTP/1.1's); the
// public listener's, with the same context, chooses h2.
TEST_F(TlsTransportTest, AnHttp11OnlyTransportNeverChoosesH2) {
  std::string error;
  const TlsContext offers_h2 = make_server_context({cert_.cert_file, cert_.key_file, ""}, {.offer_h2 = true}, error);
  ASSERT_TRUE(offers_h2) << error;
  for (const bool http11_only : {true, false}) {
    TcpPair pair;
    TlsTransport server(offers_h2, ::dup(pair.server), http11_only);
    OpenSslClient client(pair.client, verified());
    ASSERT_TRUE(connect(server, client, pair.client)) << client.error() << " / " << server.stream().error();
    EXPECT_EQ(client.alpn(), http11_only ? "http/1.1" : "h2");
    EXPECT_EQ(server.chose_h2(), !http11_only);
  }
}

// A client's FIN without close_notify ends what it sends, as close_notify
// does: the read says so (0), and the replies still owed go out. Before,
// OpenSSL took it for a broken connection and every write failed.
TEST_F(TlsTransportTest, AFinWithoutCloseNotifyEndsTheInputAndLeavesTheOutputOpen) {
  TcpPair pair;
  TlsTransport server(context(), ::dup(pair.server));
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(connect(server, client, pair.client)) << client.error() << " / " << server.stream().error();
  ASSERT_TRUE(client.write_all("POST /pub/a HTTP/1.1\r\n\r\n"));
  ASSERT_EQ(::shutdown(pair.client, SHUT_WR), 0);
  std::string request;
  EXPECT_EQ(read_request(server, client, request, 1000, pair.client), 0);
  EXPECT_EQ(request, "POST /pub/a HTTP/1.1\r\n\r\n");

  const std::string reply = "HTTP/1.1 200 OK\r\n\r\n";
  iovec iov{const_cast<char*>(reply.data()), reply.size()};
  EXPECT_EQ(server.writev(&iov, 1), static_cast<long>(reply.size())) << server.stream().error();
  EXPECT_EQ(server.shutdown_write(), 0);
  ASSERT_TRUE(pump([&] { return !client.read_available(); }, {pair.client}));
  EXPECT_EQ(client.received(), reply);
  EXPECT_TRUE(client.eof());
}

// Asked to, reads note when the records they decrypt came (a latency
// gate judges a reader's answer by it): the time of the bytes, not of the
// read, however long after it the read runs.
TEST_F(TlsTransportTest, ReadsAndPeeksNoteWhenTheirRecordsCame) {
  const sluice::test::ArrivalStampsOn stamps;
  ASSERT_TRUE(stamps.ready());
  TcpPair pair;
  TlsTransport server(context(), ::dup(pair.server));
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(connect(server, client, pair.client)) << client.error() << " / " << server.stream().error();
  EXPECT_EQ(server.last_arrival(), 0);
  ASSERT_TRUE(server.note_arrivals());
  const auto sent_before = io::Loop::Clock::now();
  ASSERT_TRUE(client.write_all("PONG"));
  const auto sent = io::Loop::Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the stall the stamp sees through
  // Unread, the record says when it came (conn::AnswerInbox's question).
  std::int64_t waiting = 0;
  ASSERT_TRUE(server.unread_input(waiting));
  EXPECT_LE(io::arrived_at(waiting, io::Loop::Clock::now()), sent + std::chrono::milliseconds(50));
  std::string got;
  read_request(server, client, got, 4, pair.client);
  ASSERT_EQ(got, "PONG");
  EXPECT_FALSE(server.unread_input(waiting));
  ASSERT_NE(server.last_arrival(), 0);
  const auto arrived = io::arrived_at(server.last_arrival(), io::Loop::Clock::now());
  EXPECT_GE(arrived, sent_before - std::chrono::milliseconds(50));
  EXPECT_LE(arrived, sent + std::chrono::milliseconds(50));
}

// A record's first bytes, its rest never sent: OpenSSL holds them, but no
// read hands anything over until the rest comes, which only the socket
// would tell. Counted as waiting, they would put off for good the verdict
// on an answer the client never sends (conn::AnswerInbox).
TEST_F(TlsTransportTest, APartialRecordIsNotInputWaiting) {
  TcpPair pair;
  TlsTransport server(context(), ::dup(pair.server));
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(connect(server, client, pair.client)) << client.error() << " / " << server.stream().error();
  ASSERT_TRUE(server.note_arrivals());
  // Application data, 100 bytes long by its header; 10 of them sent.
  const std::string partial = std::string("\x17\x03\x03\x00\x64", 5) + std::string(10, 'x');
  ASSERT_EQ(::send(pair.client, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
  std::int64_t waiting = 0;
  ASSERT_TRUE(pump([&] { return server.unread_input(waiting); }, {server.fd()}));  // in the socket
  char chunk[64];
  EXPECT_EQ(server.read(chunk, sizeof chunk), -EAGAIN);
  EXPECT_TRUE(server.stream().has_buffered_input());  // OpenSSL holds the partial record
  EXPECT_FALSE(server.unread_input(waiting));
}

TEST_F(TlsTransportTest, Tls13OnlyRefusesATls12Client) {
  TcpPair pair;
  TlsTransport server(context(true), ::dup(pair.server));
  ClientOptions options = verified();
  options.max_version = TLS1_2_VERSION;
  OpenSslClient client(pair.client, options);
  std::string got;
  EXPECT_EQ(read_request(server, client, got, 1, pair.client), -EPROTO);
  EXPECT_NE(server.stream().error().find("unsupported protocol"), std::string::npos) << server.stream().error();
}

TEST_F(TlsTransportTest, PlainHttpFailsTheFirstReadWithoutAReply) {
  TcpPair pair;
  TlsTransport server(context(), ::dup(pair.server));
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(pair.client, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  long result = -EAGAIN;
  pump(
      [&] {
        char chunk[256];
        result = server.read(chunk, sizeof chunk);
        return result != -EAGAIN;
      },
      {server.fd()});
  EXPECT_EQ(result, -EPROTO);
  EXPECT_TRUE(server.handshaking());
}

int bytes_waiting_in(int fd) {
  int n = -1;
  return ::ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

int bytes_unsent_from(int fd) {
  int n = -1;
  return ::ioctl(fd, SIOCOUTQ, &n) == 0 ? n : -1;
}

// A client may stream records that carry no application data (TLS 1.3
// KeyUpdates here) for as long as it likes. With OpenSSL's automatic
// retry one read went on through all of them while the socket had any,
// and counted nothing against the connection's turn: the loop was the
// client's. Now a read takes one such record, says so (-EINTR: read
// again), and costs a whole record's plaintext, so a turn of 128 KiB
// takes eight; the rest wait in the socket for the next turn.
TEST_F(TlsTransportTest, AReadTakesOneKeyUpdateAtATimeAndCountsItAsAWholeRecord) {
  TcpPair pair;
  TlsTransport server(context(true), ::dup(pair.server));
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(connect(server, client, pair.client)) << client.error() << " / " << server.stream().error();
  // The session tickets the server sent are the client's to read, not ours.
  ASSERT_TRUE(client.read_available());
  constexpr int kUpdates = 200;
  int sent = 0;
  while (sent < kUpdates && SSL_key_update(client.ssl(), SSL_KEY_UPDATE_NOT_REQUESTED) == 1 &&
         SSL_do_handshake(client.ssl()) == 1) {
    ++sent;
  }
  ASSERT_EQ(sent, kUpdates);
  const std::string request = "GET /sse/a HTTP/1.1\r\n\r\n";
  ASSERT_TRUE(client.write_all(request));
  // Everything the client sent waits in the server's socket before its first read.
  ASSERT_TRUE(pump([&] { return bytes_unsent_from(pair.client) == 0; }, {}));
  const int waiting = bytes_waiting_in(pair.server);
  ASSERT_GT(waiting, kUpdates * 22);  // each KeyUpdate: a 5-byte header, 5 of message, its type, a 16-byte tag

  char chunk[4096];
  long n = server.read(chunk, sizeof chunk);
  ASSERT_EQ(n, -EINTR) << "one read went on past the first KeyUpdate";
  const int one_record = waiting - bytes_waiting_in(pair.server);
  EXPECT_GT(one_record, 0);
  EXPECT_LE(one_record, 32) << "the read took more than one KeyUpdate";
  EXPECT_EQ(server.read_cost(), kMaxRecordPlaintext);

  int again = 1;
  while ((n = server.read(chunk, sizeof chunk)) == -EINTR && again <= kUpdates) ++again;
  EXPECT_EQ(again, kUpdates);
  ASSERT_EQ(n, static_cast<long>(request.size()));
  EXPECT_EQ(std::string(chunk, static_cast<std::size_t>(n)), request);
  // A record with data costs what it took from the socket: more than its plaintext.
  EXPECT_GT(server.read_cost(), request.size());
  EXPECT_LT(server.read_cost(), request.size() + 32);
  EXPECT_EQ(bytes_waiting_in(pair.server), 0);
  EXPECT_EQ(server.read(chunk, sizeof chunk), -EAGAIN);
}

// Renegotiation is disabled: a TLS 1.2 client asking for it is told so
// (the no_renegotiation alert), which OpenSSL's client takes as fatal. The
// server's read of its hello, a record that carries no application data,
// says "read again" or "nothing yet", never an error.
TEST_F(TlsTransportTest, ARenegotiationAttemptIsAnsweredNoRenegotiation) {
  TcpPair pair;
  TlsTransport server(context(), ::dup(pair.server));
  ClientOptions options = verified();
  options.max_version = TLS1_2_VERSION;
  OpenSslClient client(pair.client, options);
  ASSERT_TRUE(connect(server, client, pair.client)) << client.error() << " / " << server.stream().error();
  ASSERT_EQ(SSL_version(client.ssl()), TLS1_2_VERSION);
  ASSERT_EQ(SSL_renegotiate(client.ssl()), 1);
  (void)SSL_do_handshake(client.ssl());  // sends the hello; the answer is yet to come
  long n = -EAGAIN;
  ASSERT_TRUE(pump(
      [&] {
        char chunk[256];
        n = server.read(chunk, sizeof chunk);
        client.read_available();
        return client.failed() || (n != -EAGAIN && n != -EINTR);
      },
      {server.fd(), pair.client}));
  EXPECT_TRUE(client.failed());
  EXPECT_NE(client.error().find("no renegotiation"), std::string::npos) << client.error();
  EXPECT_TRUE(n == -EAGAIN || n == -EINTR) << n << " " << server.stream().error();
}

}  // namespace
}  // namespace sluice::transport::test
