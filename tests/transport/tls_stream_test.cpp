// TlsStream against a client made of OpenSSL calls alone, over loopback
// TCP: the handshake and ALPN, refused versions, a malformed record, the
// packing of a flush into full records, partial writes that resume byte
// for byte, and what an idle connection costs.
#include "transport/tls_stream.hpp"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/tls1.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "alloc_counter.hpp"
#include "openssl_memory.hpp"
#include "buf/frame.hpp"
#include "buf/pool.hpp"
#include "conn/out_queue.hpp"
#include "io/socket.hpp"
#include "test_certs.hpp"
#include "tls_peer.hpp"

namespace sluice::transport::test {
namespace {

class TlsStreamTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new sluice::test::TestCerts();
    ASSERT_TRUE(certs_->ok()) << certs_->error();
    cert_ = new sluice::test::ServerCert(certs_->server("localhost"));
    ASSERT_FALSE(cert_->cert_file.empty()) << certs_->error();
  }
  static void TearDownTestSuite() {
    delete cert_;
    delete certs_;
  }

  static TlsContext server_context(bool offer_h2 = true) {
    std::string error;
    TlsContext context =
        make_server_context({cert_->cert_file, cert_->key_file, ""}, {.offer_h2 = offer_h2}, error);
    EXPECT_TRUE(context) << error;
    return context;
  }
  static ClientOptions verified(std::vector<std::string> alpn = {"h2", "http/1.1"}) {
    return {.ca_file = certs_->ca_file(), .alpn = std::move(alpn)};
  }

  static sluice::test::TestCerts* certs_;
  static sluice::test::ServerCert* cert_;
};

sluice::test::TestCerts* TlsStreamTest::certs_ = nullptr;
sluice::test::ServerCert* TlsStreamTest::cert_ = nullptr;

std::string pattern(std::size_t size, unsigned seed) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<char>((i * 131 + seed) ^ (i >> 11));
  return out;
}

TEST_F(TlsStreamTest, HandshakesAndCarriesBytesBothWays) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(handshake(server, client, pair)) << server.error() << " / " << client.error();
  EXPECT_EQ(server.protocol(), AppProtocol::h2);
  EXPECT_EQ(client.alpn(), "h2");
  EXPECT_EQ(SSL_version(server.ssl()), TLS1_3_VERSION);

  ASSERT_TRUE(client.write_all("GET /sse/news HTTP/1.1\r\n\r\n"));
  std::string request;
  ASSERT_TRUE(server_read(server, request, 26, pair.server));
  EXPECT_EQ(request, "GET /sse/news HTTP/1.1\r\n\r\n");

  const std::string parts[] = {"HTTP/1.1 200 OK\r\n", "\r\n", "data: one\n\n"};
  iovec iov[3];
  for (int i = 0; i < 3; ++i) iov[i] = {const_cast<char*>(parts[i].data()), parts[i].size()};
  EXPECT_EQ(server.writev(iov, 3), 30);
  EXPECT_FALSE(server.holds_output());
  ASSERT_TRUE(pump([&] { return !client.read_available() || client.received().size() >= 30; }, {pair.client}));
  EXPECT_EQ(client.received(), "HTTP/1.1 200 OK\r\n\r\ndata: one\n\n");
}

TEST_F(TlsStreamTest, AlpnPrefersH2ThenHttp11AndDefaultsToHttp11WithoutAlpn) {
  struct Case {
    std::vector<std::string> offered;
    bool server_offers_h2;
    AppProtocol expected;
    std::string client_sees;
  };
  const Case cases[] = {
      {{"http/1.1", "h2"}, true, AppProtocol::h2, "h2"},
      {{"http/1.1"}, true, AppProtocol::http1, "http/1.1"},
      {{"h2", "http/1.1"}, false, AppProtocol::http1, "http/1.1"},
      {{}, true, AppProtocol::http1, ""},
  };
  for (const Case& c : cases) {
    TcpPair pair;
    TlsStream server(server_context(c.server_offers_h2), pair.server);
    OpenSslClient client(pair.client, verified(c.offered));
    ASSERT_TRUE(handshake(server, client, pair)) << server.error() << " / " << client.error();
    EXPECT_EQ(server.protocol(), c.expected);
    EXPECT_EQ(client.alpn(), c.client_sees);
  }
}

TEST_F(TlsStreamTest, AClientOfferingNeitherProtocolIsRefusedWithNoApplicationProtocol) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified({"spdy/3", "h2c"}));
  EXPECT_FALSE(handshake(server, client, pair));
  EXPECT_FALSE(server.established());
  EXPECT_NE(server.error().find("tls handshake"), std::string::npos) << server.error();
  pump([&] { return client.connect_step() || client.failed(); }, {pair.client});
  EXPECT_EQ(client.alert_received(), TLS1_AD_NO_APPLICATION_PROTOCOL) << client.error();
}

TEST_F(TlsStreamTest, Tls12IsServedAndTls11IsRefusedWithProtocolVersion) {
  {
    TcpPair pair;
    TlsStream server(server_context(), pair.server);
    ClientOptions options = verified();
    options.max_version = TLS1_2_VERSION;
    OpenSslClient client(pair.client, options);
    ASSERT_TRUE(handshake(server, client, pair)) << server.error() << " / " << client.error();
    EXPECT_EQ(SSL_version(server.ssl()), TLS1_2_VERSION);
    EXPECT_EQ(server.protocol(), AppProtocol::h2);
  }
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  ClientOptions options = verified();
  options.min_version = TLS1_1_VERSION;
  options.max_version = TLS1_1_VERSION;
  options.security_level = 0;  // OpenSSL 3 allows TLS 1.1 only at level 0
  OpenSslClient client(pair.client, options);
  EXPECT_FALSE(handshake(server, client, pair));
  EXPECT_NE(server.error().find("unsupported protocol"), std::string::npos) << server.error();
  pump([&] { return client.connect_step() || client.failed(); }, {pair.client});
  EXPECT_EQ(client.alert_received(), SSL_AD_PROTOCOL_VERSION) << client.error();
}

TEST_F(TlsStreamTest, AMalformedRecordIsAnsweredWithAnAlertAndTheConnectionEnds) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(handshake(server, client, pair));
  // An application-data record whose ciphertext is noise, written under
  // the client's TLS layer: the server cannot authenticate it.
  std::string record = "\x17\x03\x03";
  record += std::string("\x00\x40", 2) + pattern(64, 7);
  ASSERT_EQ(::send(pair.client, record.data(), record.size(), MSG_NOSIGNAL), static_cast<ssize_t>(record.size()));
  std::string ignored;
  EXPECT_FALSE(server_read(server, ignored, 1, pair.server));
  EXPECT_NE(server.error().find("tls read"), std::string::npos) << server.error();
  pair.close_server();  // what the owner does on failed
  pump([&] { return !client.read_available(); }, {pair.client});
  EXPECT_EQ(client.alert_received(), SSL_AD_BAD_RECORD_MAC) << client.error();
}

TEST_F(TlsStreamTest, PlainHttpOnTheTlsPortFailsTheHandshake) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(pair.client, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  TlsStatus status = TlsStatus::want_read;
  pump([&] { return (status = server.handshake()) == TlsStatus::failed; }, {pair.server});
  EXPECT_EQ(status, TlsStatus::failed);
  EXPECT_NE(server.error().find("http request"), std::string::npos) << server.error();
}

// A flush of many small frames leaves as few full records as the bytes
// need, each one send(), and OutQueue's accounting is the plain writer's.
TEST_F(TlsStreamTest, AFlushOfManySmallFramesLeavesAsFullRecords) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(handshake(server, client, pair));
  buf::Pool pool({.block_count = 2048, .block_size = 256, .reserve = 0});
  conn::OutQueue queue;
  std::string sent;
  for (int i = 0; i < 1000; ++i) {
    const std::string event = "id: " + std::to_string(i) + "\ndata: " + pattern(48, static_cast<unsigned>(i)) + "\n\n";
    sent += event;
    ASSERT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, event)), conn::EnqueueStatus::ok);
  }
  const std::uint64_t records_before = server.records_written();
  const std::uint64_t sends_before = server.socket_calls().sends;
  const conn::FlushResult result = queue.flush(server);
  EXPECT_EQ(result.status, conn::FlushStatus::drained);
  EXPECT_EQ(result.bytes, sent.size());
  EXPECT_EQ(result.frames_completed, 1000u);
  const std::uint64_t full_records = (sent.size() + kMaxRecordPlaintext - 1) / kMaxRecordPlaintext;
  EXPECT_EQ(server.records_written() - records_before, full_records);
  EXPECT_EQ(server.socket_calls().sends - sends_before, full_records);
  EXPECT_FALSE(server.holds_output());
  ASSERT_TRUE(pump([&] { return !client.read_available() || client.received().size() >= sent.size(); },
                   {pair.client}));
  EXPECT_EQ(client.received(), sent);
}

// With a send buffer of a few KiB, writes stop in the middle of records and
// frames, and resume byte for byte.
TEST_F(TlsStreamTest, PartialWritesResumeByteExactlyThroughATinySendBuffer) {
  TcpPair pair;
  ASSERT_EQ(io::set_send_buffer(pair.server, 4096), 0);
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(handshake(server, client, pair));

  constexpr std::size_t kTotal = std::size_t{2} << 20;
  const std::string payload = pattern(kTotal, 3);
  buf::Pool pool({.block_count = kTotal / 1024 * 2, .block_size = 1024, .reserve = 0});
  conn::OutQueue queue({.max_bytes = kTotal, .max_frames = 8192});
  // Frames of uneven sizes, so records and frames end at different places.
  for (std::size_t at = 0, i = 0; at < kTotal; ++i) {
    const std::size_t size = std::min(kTotal - at, 100 + (i * 7919) % 20000);
    buf::FrameRef frame = buf::make_frame(pool, buf::Lane::data, std::string_view(payload).substr(at, size));
    ASSERT_TRUE(frame);
    ASSERT_EQ(queue.push_data(std::move(frame)), conn::EnqueueStatus::ok);
    at += size;
  }
  std::size_t taken = 0;
  int blocked = 0;
  int held = 0;
  ASSERT_TRUE(pump(
      [&] {
        if (!queue.empty() || server.holds_output()) {
          // A drained queue with a record still held: writev with no
          // iovecs sends it.
          const conn::FlushResult r = queue.empty() ? conn::FlushResult{conn::FlushStatus::drained}
                                                    : queue.flush(server);
          if (queue.empty() && server.holds_output()) (void)server.writev(nullptr, 0);
          EXPECT_NE(r.status, conn::FlushStatus::error) << server.error();
          taken += r.bytes;
          blocked += r.status == conn::FlushStatus::blocked;
          held += server.holds_output();
        }
        client.read_available();
        return client.received().size() >= kTotal || client.failed();
      },
      {pair.client}, 60s, {pair.server}))
      << "received " << client.received().size() << ": " << client.error() << server.error();
  EXPECT_EQ(taken, kTotal);
  EXPECT_GT(blocked, 0);
  EXPECT_GT(held, 0);
  EXPECT_EQ(queue.data_bytes(), 0u);
  EXPECT_FALSE(server.holds_output());
  ASSERT_EQ(client.received().size(), kTotal);
  EXPECT_TRUE(client.received() == payload);
}

TEST_F(TlsStreamTest, CloseNotifyEndsTheStreamCleanly) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(handshake(server, client, pair));
  EXPECT_EQ(server.shutdown(), TlsStatus::ok);
  pump([&] { return !client.read_available(); }, {pair.client});
  EXPECT_TRUE(client.eof());
  ASSERT_EQ(SSL_shutdown(client.ssl()), 1);
  std::string rest;
  EXPECT_FALSE(server_read(server, rest, 1, pair.server));
  EXPECT_TRUE(rest.empty());
}

TEST_F(TlsStreamTest, ATicketFromOneConnectionResumesTheNext) {
  const TlsContext context = server_context();
  SSL_SESSION* session = nullptr;
  {
    TcpPair pair;
    TlsStream server(context, pair.server);
    OpenSslClient client(pair.client, verified());
    ASSERT_TRUE(handshake(server, client, pair));
    EXPECT_FALSE(server.resumed());
    // TLS 1.3 tickets follow the handshake; a read takes them in.
    iovec iov{const_cast<char*>("x"), 1};
    ASSERT_EQ(server.writev(&iov, 1), 1);
    ASSERT_TRUE(pump([&] { return !client.read_available() || !client.received().empty(); }, {pair.client}));
    session = SSL_get1_session(client.ssl());
    ASSERT_NE(session, nullptr);
    // A connection that ends without close_notify makes OpenSSL mark its
    // session unresumable.
    SSL_shutdown(client.ssl());
  }
  TcpPair pair;
  TlsStream server(context, pair.server);
  ClientOptions options = verified();
  options.session = session;
  OpenSslClient client(pair.client, options);
  ASSERT_TRUE(handshake(server, client, pair));
  EXPECT_TRUE(server.resumed());
  SSL_SESSION_free(session);
}

TEST_F(TlsStreamTest, AnIdleConnectionHoldsNoBuffers) {
  constexpr int kConnections = 16;
  const long before = openssl_live_bytes();
  ASSERT_GE(before, 0) << "OpenSSL allocated before the counter was installed";
  const TlsContext context = server_context();
  std::vector<std::unique_ptr<TcpPair>> pairs;
  std::vector<std::unique_ptr<TlsStream>> servers;
  std::vector<std::unique_ptr<OpenSslClient>> clients;
  const std::string message(20000, 'm');
  for (int i = 0; i < kConnections; ++i) {
    pairs.push_back(std::make_unique<TcpPair>());
    servers.push_back(std::make_unique<TlsStream>(context, pairs.back()->server));
    clients.push_back(std::make_unique<OpenSslClient>(pairs.back()->client, verified()));
    ASSERT_TRUE(handshake(*servers.back(), *clients.back(), *pairs.back()));
    // Traffic both ways, so that both of OpenSSL's buffers were used.
    ASSERT_TRUE(clients.back()->write_all(message));
    std::string got;
    ASSERT_TRUE(server_read(*servers.back(), got, message.size(), pairs.back()->server));
    iovec iov{const_cast<char*>(message.data()), message.size()};
    ASSERT_EQ(servers.back()->writev(&iov, 1), static_cast<long>(message.size()));
    ASSERT_FALSE(servers.back()->holds_output());
  }
  clients.clear();
  const long with_servers = openssl_live_bytes();
  servers.clear();
  const long per_connection = (with_servers - openssl_live_bytes()) / kConnections;
  std::printf("OpenSSL heap per idle server connection: %ld bytes\n", per_connection);
  // About 14 KiB with OpenSSL 3.0 (the SSL object, its session, the
  // cipher states); 46 KiB when OpenSSL keeps its read and write buffers.
  EXPECT_LT(per_connection, 20 * 1024);
  EXPECT_GT(per_connection, 0);
}

// buffered_bytes() counts each record buffer OpenSSL holds at
// kRecordBufferEstimate, for the connection's memory account. Measured
// here against OpenSSL's own heap: a record of which only the start has
// come (a client that stops mid-record keeps the read buffer for as long
// as it likes), and a record waiting for a socket its client does not
// read (the write buffer, with the staging buffer, which is ours).
TEST_F(TlsStreamTest, BufferedBytesCoverTheRecordBuffersOpenSslHolds) {
  constexpr int kConnections = 8;
  const TlsContext context = server_context();
  std::vector<std::unique_ptr<TcpPair>> pairs;
  std::vector<std::unique_ptr<TlsStream>> servers;
  std::vector<std::unique_ptr<OpenSslClient>> clients;
  for (int i = 0; i < kConnections; ++i) {
    pairs.push_back(std::make_unique<TcpPair>());
    ASSERT_EQ(io::set_send_buffer(pairs.back()->server, 4096), 0);
    servers.push_back(std::make_unique<TlsStream>(context, pairs.back()->server));
    clients.push_back(std::make_unique<OpenSslClient>(pairs.back()->client, verified()));
    ASSERT_TRUE(handshake(*servers.back(), *clients.back(), *pairs.back()));
    EXPECT_EQ(servers.back()->buffered_bytes(), 0u);
  }
  const long idle = openssl_live_bytes();
  ASSERT_GE(idle, 0);
  // The header of an application-data record of 16,640 bytes and the
  // first 1,000 of them.
  std::string partial = {0x17, 0x03, 0x03, 0x41, 0x00};
  partial += std::string(1000, 'p');
  for (int i = 0; i < kConnections; ++i) {
    ASSERT_EQ(::send(pairs[i]->client, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
    char into[256];
    std::size_t got = 0;
    ASSERT_TRUE(pump([&] { return servers[i]->read(into, got) == TlsStatus::want_read && servers[i]->has_buffered_input(); },
                     {pairs[i]->server}));
    EXPECT_EQ(servers[i]->buffered_bytes(), kRecordBufferEstimate);
  }
  const long read_buffer = (openssl_live_bytes() - idle) / kConnections;
  std::printf("OpenSSL's read buffer: %ld bytes (counted as %zu)\n", read_buffer, kRecordBufferEstimate);
  EXPECT_LE(read_buffer, static_cast<long>(kRecordBufferEstimate));
  EXPECT_GE(read_buffer, static_cast<long>(kRecordBufferEstimate) * 9 / 10);

  // Records the socket cannot take (4 KiB send buffer, a client that
  // does not read) until one is held.
  const long before_writes = openssl_live_bytes();
  const std::string payload(16384, 'w');
  for (int i = 0; i < kConnections; ++i) {
    iovec iov{const_cast<char*>(payload.data()), payload.size()};
    for (int tries = 0; tries < 1000 && !servers[i]->holds_output(); ++tries) {
      const long taken = servers[i]->writev(&iov, 1);
      ASSERT_TRUE(taken > 0 || taken == -EAGAIN) << servers[i]->error();
    }
    ASSERT_TRUE(servers[i]->holds_output());
    EXPECT_EQ(servers[i]->buffered_bytes(), 2 * kRecordBufferEstimate + kMaxRecordPlaintext);
  }
  const long write_buffer = (openssl_live_bytes() - before_writes) / kConnections;
  std::printf("OpenSSL's write buffer: %ld bytes (counted as %zu)\n", write_buffer, kRecordBufferEstimate);
  EXPECT_LE(write_buffer, static_cast<long>(kRecordBufferEstimate));
  EXPECT_GE(write_buffer, static_cast<long>(kRecordBufferEstimate) * 9 / 10);
}

// A read held to the whole record at the head of the socket, into less
// room than the record's plaintext: OpenSSL decrypts the record, hands out
// what fits and keeps the rest (one read buffer, counted as such) for the
// next read, which needs no socket; nothing past the record is taken, so
// the next record is still there whole once the rest is out. This is how
// a connection whose input buffer may not grow reads into its spare room,
// as over TCP.
TEST_F(TlsStreamTest, AReadHeldToOneRecordKeepsWhatDidNotFitAndTakesNothingPastIt) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(handshake(server, client, pair)) << server.error() << " / " << client.error();
  const std::string sent = pattern(2 * kMaxRecordPlaintext, 5);
  ASSERT_TRUE(client.write_all(sent));  // two full records
  ASSERT_TRUE(pump([&] { return server.whole_record_plaintext() == kMaxRecordPlaintext; }, {pair.server}));
  EXPECT_FALSE(server.confine_next_read(1000)) << "a record of 16 KiB fitted 1,000 bytes";
  ASSERT_TRUE(server.confine_next_read_to_record());
  EXPECT_EQ(server.read_reserve(), kRecordBufferEstimate);
  std::string got(1000, '\0');
  std::size_t n = 0;
  ASSERT_EQ(server.read(got, n), TlsStatus::ok) << server.error();
  ASSERT_EQ(n, 1000u);
  EXPECT_TRUE(server.has_buffered_input());
  EXPECT_EQ(server.buffered_bytes(), kRecordBufferEstimate);
  EXPECT_EQ(server.read_reserve(), 0u);
  const std::uint64_t recvs = server.socket_calls().recvs;
  std::string rest(kMaxRecordPlaintext, '\0');
  ASSERT_EQ(server.read(rest, n), TlsStatus::ok) << server.error();
  EXPECT_EQ(n, kMaxRecordPlaintext - 1000);
  EXPECT_EQ(server.socket_calls().recvs, recvs) << "the rest came from the socket, not from OpenSSL's buffer";
  got.append(rest, 0, n);
  EXPECT_EQ(got, sent.substr(0, kMaxRecordPlaintext));
  EXPECT_EQ(server.buffered_bytes(), 0u);
  EXPECT_EQ(server.whole_record_plaintext(), kMaxRecordPlaintext) << "the read took bytes past its record";
}

// The openssl command-line client, which verifies the chain and host and
// prints what it negotiated.
TEST_F(TlsStreamTest, TheOpensslCommandLineClientConnectsAndVerifies) {
  const int listener = io::listen_tcp({"127.0.0.1", 0}, {});
  ASSERT_GE(listener, 0);
  const std::string port = std::to_string(io::local_port(listener));
  // stdin is /dev/null, so s_client leaves once it has printed the session.
  sluice::test::ChildProcess s_client(
      {"sh", "-c",
       "exec openssl s_client -connect 127.0.0.1:" + port + " -servername localhost -verify_hostname localhost " +
           "-CAfile " + certs_->ca_file() + " -alpn h2,http/1.1 -verify_return_error </dev/null"});
  pollfd pending{listener, POLLIN, 0};
  ASSERT_EQ(::poll(&pending, 1, 10000), 1);
  const int fd = io::accept_nonblocking(listener);
  ::close(listener);
  ASSERT_GE(fd, 0);
  TlsStream server(server_context(), fd);
  TlsStatus status = TlsStatus::want_read;
  EXPECT_TRUE(pump([&] { return (status = server.handshake()) != TlsStatus::want_read; }, {fd}));
  EXPECT_EQ(status, TlsStatus::ok) << server.error();
  EXPECT_EQ(server.protocol(), AppProtocol::h2);
  EXPECT_TRUE(s_client.read_to_end(10s));
  EXPECT_EQ(s_client.wait(10s), 0) << s_client.output();
  const std::string& out = s_client.output();
  EXPECT_NE(out.find("ALPN protocol: h2"), std::string::npos) << out;
  EXPECT_NE(out.find("Verify return code: 0 (ok)"), std::string::npos) << out;
  EXPECT_NE(out.find("TLSv1.3"), std::string::npos) << out;
  ::close(fd);
}

// A steady stream of flushes: sluice's side (the staging buffer comes from
// the thread's cache) allocates nothing, and nothing stays allocated.
// OpenSSL 3.0 allocates on its own for every record it seals (three times
// with TLS 1.3 and AES-GCM, measured), plus its record buffer, which it
// gives back once the record is out (SSL_MODE_RELEASE_BUFFERS): four per
// record, that is per flush of up to 16 KiB of events, not per event. The
// buffer's one is the price of idle connections holding 14 KiB, not 46.
TEST_F(TlsStreamTest, SteadyFlushesAllocateNothingOfOursAndAFewPerRecordInOpenSsl) {
  TcpPair pair;
  TlsStream server(server_context(), pair.server);
  OpenSslClient client(pair.client, verified());
  ASSERT_TRUE(handshake(server, client, pair));
  buf::Pool pool({.block_count = 256, .block_size = 256, .reserve = 0});
  conn::OutQueue queue;
  const std::string event = "data: " + std::string(56, 's') + "\n\n";
  auto flush_events = [&](int events) {
    for (int i = 0; i < events; ++i) {
      ASSERT_EQ(queue.push_data(buf::make_frame(pool, buf::Lane::data, event)), conn::EnqueueStatus::ok);
    }
    ASSERT_EQ(queue.flush(server).status, conn::FlushStatus::drained);
    ASSERT_FALSE(server.holds_output());
  };
  for (int i = 0; i < 10; ++i) flush_events(20);
  const std::uint64_t records_before = server.records_written();
  const long openssl_before = openssl_allocations();
  const long live_before = openssl_live_bytes();
  const std::uint64_t before = sluice::test::allocations();
  for (int i = 0; i < 100; ++i) flush_events(20);
  const std::uint64_t ours = sluice::test::allocations() - before;
  const long openssl = openssl_allocations() - openssl_before;
  const std::uint64_t records = server.records_written() - records_before;
  std::printf("100 flushes of 20 events: %lu records, %lu allocations by sluice, %ld by OpenSSL\n",
              static_cast<unsigned long>(records), static_cast<unsigned long>(ours), openssl);
  EXPECT_EQ(records, 100u);
  EXPECT_EQ(ours, 0u);
  EXPECT_LE(openssl, 4 * static_cast<long>(records));
  EXPECT_EQ(openssl_live_bytes(), live_before);
  ASSERT_TRUE(pump([&] { return !client.read_available() || client.received().size() >= 110 * 20 * event.size(); },
                   {pair.client}));
}

TEST(KernelTls, AvailabilityFollowsTheKernelsList) {
  std::FILE* file = std::fopen("/proc/sys/net/ipv4/tcp_available_ulp", "r");
  char line[256] = {};
  const bool read = file != nullptr && std::fgets(line, sizeof line, file) != nullptr;
  if (file != nullptr) std::fclose(file);
  const bool listed = read && (std::string(" ") + line + " ").find(" tls") != std::string::npos;
  EXPECT_EQ(kernel_tls_available(), listed) << line;
}

}  // namespace
}  // namespace sluice::transport::test
