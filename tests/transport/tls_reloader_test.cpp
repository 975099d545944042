// Reloading the certificate: open connections keep theirs and go on, new
// ones get the new one, and a broken file on disk changes nothing.
#include "transport/tls_reloader.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_certs.hpp"
#include "tls_peer.hpp"
#include "transport/tls_stream.hpp"

namespace sluice::transport::test {
namespace {

namespace fs = std::filesystem;

void install(const sluice::test::ServerCert& from, const TlsServerFiles& to) {
  fs::copy_file(from.cert_file, to.cert_file, fs::copy_options::overwrite_existing);
  fs::copy_file(from.key_file, to.key_file, fs::copy_options::overwrite_existing);
}

std::string exchange(TlsStream& server, OpenSslClient& client, TcpPair& pair, const std::string& text) {
  if (!client.write_all(text)) return "client write failed: " + client.error();
  std::string got;
  if (!server_read(server, got, text.size(), pair.server)) return "server read failed: " + server.error();
  iovec iov{got.data(), got.size()};
  if (server.writev(&iov, 1) != static_cast<long>(got.size())) return "server write failed";
  client.received().clear();
  pump([&] { return !client.read_available() || client.received().size() >= text.size(); }, {pair.client});
  return client.received();
}

TEST(TlsReloader, NewConnectionsGetTheNewCertificateWhileOpenOnesGoOn) {
  sluice::test::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const sluice::test::ServerCert first = certs.server("first");
  const sluice::test::ServerCert second = certs.server("second");
  ASSERT_NE(first.serial, second.serial);
  const TlsServerFiles files{certs.dir() + "/live.pem", certs.dir() + "/live.key", ""};
  install(first, files);

  TlsReloader reloader(files, {});
  EXPECT_FALSE(reloader.current());
  ASSERT_EQ(reloader.reload(), std::nullopt);
  EXPECT_EQ(reloader.generation(), 1u);

  TcpPair old_pair;
  TlsStream old_server(reloader.current(), old_pair.server);
  OpenSslClient old_client(old_pair.client, {.ca_file = certs.ca_file()});
  ASSERT_TRUE(handshake(old_server, old_client, old_pair));
  EXPECT_EQ(old_client.peer_serial(), first.serial);

  install(second, files);
  ASSERT_EQ(reloader.reload(), std::nullopt);
  EXPECT_EQ(reloader.generation(), 2u);

  EXPECT_EQ(exchange(old_server, old_client, old_pair, "still here"), "still here");
  TcpPair new_pair;
  TlsStream new_server(reloader.current(), new_pair.server);
  OpenSslClient new_client(new_pair.client, {.ca_file = certs.ca_file()});
  ASSERT_TRUE(handshake(new_server, new_client, new_pair));
  EXPECT_EQ(new_client.peer_serial(), second.serial);
  EXPECT_EQ(exchange(old_server, old_client, old_pair, "and still"), "and still");
}

TEST(TlsReloader, AFailedReloadKeepsServingTheOldCertificateAndSaysWhy) {
  sluice::test::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const sluice::test::ServerCert first = certs.server("first");
  const sluice::test::ServerCert second = certs.server("second");
  const TlsServerFiles files{certs.dir() + "/live.pem", certs.dir() + "/live.key", ""};
  install(first, files);
  TlsReloader reloader(files, {});
  ASSERT_EQ(reloader.reload(), std::nullopt);

  // Half a rotation: the new certificate is there, its key is not yet.
  fs::copy_file(second.cert_file, files.cert_file, fs::copy_options::overwrite_existing);
  const std::optional<std::string> error = reloader.reload();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("does not match tls.cert_file"), std::string::npos) << *error;
  EXPECT_EQ(error->find('\n'), std::string::npos);
  EXPECT_EQ(reloader.generation(), 1u);

  fs::remove(files.key_file);
  const std::optional<std::string> missing = reloader.reload();
  ASSERT_TRUE(missing.has_value());
  EXPECT_NE(missing->find("tls.key_file: cannot open " + files.key_file), std::string::npos) << *missing;

  TcpPair pair;
  TlsStream server(reloader.current(), pair.server);
  OpenSslClient client(pair.client, {.ca_file = certs.ca_file()});
  ASSERT_TRUE(handshake(server, client, pair));
  EXPECT_EQ(client.peer_serial(), first.serial);
}

}  // namespace
}  // namespace sluice::transport::test
