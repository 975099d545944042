// The bench's TLS channel: a reader that polls must not be told to read
// again while OpenSSL holds only the start of a record, or it spins on
// "want read" instead of waiting for the socket.
#include "tls_client.hpp"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>
#include <thread>

#include "test_certs.hpp"
#include "transport/tls_context.hpp"

namespace sluice::bench {
namespace {

class TlsChannelTest : public test::ServerCertTest {
 protected:
  TlsChannelTest() : ServerCertTest("bench-channel") {}
};

ssize_t read_some(Channel& channel, std::string& out) {
  std::array<char, 4096> buffer{};
  const ssize_t n = channel.read(buffer.data(), buffer.size());
  if (n > 0) out.append(buffer.data(), static_cast<std::size_t>(n));
  return n;
}

TEST_F(TlsChannelTest, APartRecordLeavesNothingBufferedUntilTheRestArrives) {
  std::string error;
  const transport::TlsContext server_context =
      transport::make_server_context({.cert_file = cert_.cert_file, .key_file = cert_.key_file}, {}, error);
  ASSERT_TRUE(server_context) << error;
  const auto client = TlsClient::make(certs_.ca_file(), true, "127.0.0.1", error);
  ASSERT_NE(client, nullptr) << error;

  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const int server_fd = fds[0];
  const int client_fd = fds[1];
  SSL* server = SSL_new(server_context.get());
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(SSL_set_fd(server, server_fd), 1);
  int accepted = 0;
  std::thread handshake([&] { accepted = SSL_accept(server); });
  Channel channel;
  const std::string opened = channel.open(client_fd, client.get());
  handshake.join();
  ASSERT_TRUE(opened.empty()) << opened;
  ASSERT_EQ(accepted, 1);
  ASSERT_EQ(::fcntl(client_fd, F_SETFL, ::fcntl(client_fd, F_GETFL) | O_NONBLOCK), 0);

  // One whole record, then the first half of the next: the second record
  // is sealed into memory and only part of its bytes reach the socket.
  ASSERT_EQ(SSL_write(server, "hello", 5), 5);
  BIO* sealed = BIO_new(BIO_s_mem());
  ASSERT_NE(sealed, nullptr);
  SSL_set0_wbio(server, sealed);
  ASSERT_EQ(SSL_write(server, "world", 5), 5);
  char* record = nullptr;
  const long record_size = BIO_get_mem_data(sealed, &record);
  ASSERT_GT(record_size, 10);
  const auto half = static_cast<std::size_t>(record_size / 2);
  ASSERT_EQ(::send(server_fd, record, half, 0), static_cast<ssize_t>(half));

  std::string received;
  ASSERT_EQ(read_some(channel, received), 5);  // read ahead: the half record came along
  EXPECT_EQ(received, "hello");
  EXPECT_TRUE(channel.buffered());  // more may be whole: read before waiting
  errno = 0;
  EXPECT_EQ(read_some(channel, received), -1);
  EXPECT_EQ(errno, EAGAIN);
  EXPECT_FALSE(channel.buffered());  // only part of a record: wait for the socket

  const std::size_t rest = static_cast<std::size_t>(record_size) - half;
  ASSERT_EQ(::send(server_fd, record + half, rest, 0), static_cast<ssize_t>(rest));
  EXPECT_EQ(read_some(channel, received), 5);
  EXPECT_EQ(received, "helloworld");

  SSL_free(server);
  ::close(server_fd);
  ::close(client_fd);
}

}  // namespace
}  // namespace sluice::bench
