// Contexts built from files on disk: what a wrong file says, a chain sent
// along, and a client that checks the chain and the host name (sluice's
// own client side, against the server side).
#include "transport/tls_context.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <string>

#include "test_certs.hpp"
#include "tls_peer.hpp"
#include "transport/tls_stream.hpp"

namespace sluice::transport::test {
namespace {

class TlsContextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new sluice::test::TestCerts();
    ASSERT_TRUE(certs_->ok()) << certs_->error();
  }
  static void TearDownTestSuite() { delete certs_; }

  static sluice::test::TestCerts* certs_;
};

sluice::test::TestCerts* TlsContextTest::certs_ = nullptr;

std::string server_error(const TlsServerFiles& files) {
  std::string error;
  const TlsContext context = make_server_context(files, {}, error);
  EXPECT_FALSE(context);
  return error;
}

// Handshakes sluice's client side against sluice's server side.
struct ClientRun {
  bool ok = false;
  std::string client_error;
  std::string alpn;
};

ClientRun connect_with(const TlsContext& server_context, const TlsClientOptions& options, const std::string& host) {
  std::string error;
  const TlsContext client_context = make_client_context(options, error);
  EXPECT_TRUE(client_context) << error;
  TcpPair pair;
  TlsStream server(server_context, pair.server);
  TlsStream client(client_context, pair.client, host);
  EXPECT_TRUE(client.valid()) << client.error();
  bool server_done = false;
  bool client_done = false;
  pump(
      [&] {
        const TlsStatus s = server_done ? TlsStatus::ok : server.handshake();
        const TlsStatus c = client_done ? TlsStatus::ok : client.handshake();
        server_done = s == TlsStatus::ok;
        client_done = c == TlsStatus::ok;
        return (server_done && client_done) || s == TlsStatus::failed || c == TlsStatus::failed;
      },
      {pair.server, pair.client});
  return {server_done && client_done, client.error(),
          client.protocol() == AppProtocol::h2 ? "h2" : "http/1.1"};
}

TEST_F(TlsContextTest, EachFileProblemIsOneLineNamingTheKeyAndPath) {
  const sluice::test::ServerCert cert = certs_->server("files");
  const std::string missing = certs_->dir() + "/missing.pem";
  const std::string no_cert = server_error({missing, cert.key_file, ""});
  EXPECT_NE(no_cert.find("tls.cert_file: cannot open " + missing + ": No such file or directory"), std::string::npos)
      << no_cert;
  EXPECT_NE(server_error({cert.cert_file, missing, ""}).find("tls.key_file: cannot open " + missing), std::string::npos);
  EXPECT_NE(server_error({cert.cert_file, cert.key_file, missing}).find("tls.chain_file"), std::string::npos);
  EXPECT_NE(server_error({"", "", ""}).find("must both be set"), std::string::npos);

  const std::string garbage = certs_->dir() + "/garbage.pem";
  std::ofstream(garbage) << "not a certificate\n";
  const std::string no_certificate = server_error({garbage, cert.key_file, ""});
  EXPECT_NE(no_certificate.find("tls.cert_file '" + garbage + "': holds no PEM certificate OpenSSL can read"),
            std::string::npos)
      << no_certificate;
  const std::string no_key = server_error({cert.cert_file, garbage, ""});
  EXPECT_NE(no_key.find("tls.key_file '" + garbage + "': holds no PEM private key OpenSSL can read, OpenSSL says: "),
            std::string::npos)
      << no_key;
  EXPECT_NE(server_error({cert.cert_file, cert.key_file, garbage}).find("holds no PEM certificate"),
            std::string::npos);

  // A FIFO would hold the loading thread until a writer came; a device may
  // never end: neither is opened.
  const std::string fifo = certs_->dir() + "/fifo.pem";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(server_error({fifo, cert.key_file, ""}), "tls.cert_file: " + fifo + " is not a regular file");
  EXPECT_EQ(server_error({cert.cert_file, "/dev/zero", ""}), "tls.key_file: /dev/zero is not a regular file");
  EXPECT_EQ(server_error({cert.cert_file, cert.key_file, fifo}), "tls.chain_file: " + fifo + " is not a regular file");
  std::remove(fifo.c_str());

  // An encrypted key is refused at once: nobody is there to type its
  // passphrase, and OpenSSL's default would ask the terminal and wait.
  const std::string encrypted = certs_->dir() + "/encrypted.key";
  {
    std::ifstream plain(cert.key_file);
    const std::string text((std::istreambuf_iterator<char>(plain)), std::istreambuf_iterator<char>());
    BIO* in = BIO_new_mem_buf(text.data(), static_cast<int>(text.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(in, nullptr, nullptr, nullptr);
    BIO_free(in);
    ASSERT_NE(key, nullptr);
    BIO* out = BIO_new_file(encrypted.c_str(), "w");
    char passphrase[] = "typed by nobody";
    ASSERT_EQ(PEM_write_bio_PrivateKey(out, key, EVP_aes_256_cbc(), nullptr, 0, nullptr, passphrase), 1);
    BIO_free(out);
    EVP_PKEY_free(key);
  }
  const std::string locked = server_error({cert.cert_file, encrypted, ""});
  EXPECT_NE(locked.find("tls.key_file '" + encrypted + "': holds no PEM private key"), std::string::npos) << locked;

  const sluice::test::ServerCert other = certs_->server("other");
  const std::string mismatch = server_error({cert.cert_file, other.key_file, ""});
  EXPECT_NE(mismatch.find("does not match tls.cert_file"), std::string::npos) << mismatch;
  for (const std::string& line : {mismatch, server_error({missing, cert.key_file, ""})}) {
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
}

TEST_F(TlsContextTest, AClientVerifiesTheChainAndTheHostByDefault) {
  const sluice::test::ServerCert cert = certs_->server("verified");
  std::string error;
  const TlsContext server = make_server_context({cert.cert_file, cert.key_file, ""}, {}, error);
  ASSERT_TRUE(server) << error;
  const TlsClientOptions trusting{.ca_file = certs_->ca_file(), .alpn = {"h2", "http/1.1"}};

  EXPECT_TRUE(connect_with(server, trusting, "localhost").ok);
  EXPECT_TRUE(connect_with(server, trusting, "127.0.0.1").ok);
  EXPECT_EQ(connect_with(server, trusting, "localhost").alpn, "h2");

  const ClientRun wrong_host = connect_with(server, trusting, "example.com");
  EXPECT_FALSE(wrong_host.ok);
  EXPECT_NE(wrong_host.client_error.find("hostname mismatch"), std::string::npos) << wrong_host.client_error;
  const ClientRun wrong_ip = connect_with(server, trusting, "127.0.0.2");
  EXPECT_FALSE(wrong_ip.ok);
  EXPECT_NE(wrong_ip.client_error.find("IP address mismatch"), std::string::npos) << wrong_ip.client_error;

  const TlsClientOptions stranger{.ca_file = certs_->other_ca("stranger")};
  const ClientRun untrusted = connect_with(server, stranger, "localhost");
  EXPECT_FALSE(untrusted.ok);
  EXPECT_NE(untrusted.client_error.find("certificate verify failed"), std::string::npos) << untrusted.client_error;

  // Only an explicit choice turns verification off.
  EXPECT_TRUE(connect_with(server, {.ca_file = stranger.ca_file, .verify = false}, "example.com").ok);
}

TEST_F(TlsContextTest, TheChainFileIsSentAfterTheCertificate) {
  const sluice::test::ServerCert cert = certs_->server_via_intermediate("chained");
  ASSERT_FALSE(cert.chain_file.empty()) << certs_->error();
  const TlsClientOptions trusting{.ca_file = certs_->ca_file()};
  std::string error;
  const TlsContext with_chain = make_server_context({cert.cert_file, cert.key_file, cert.chain_file}, {}, error);
  ASSERT_TRUE(with_chain) << error;
  EXPECT_TRUE(connect_with(with_chain, trusting, "localhost").ok);

  const TlsContext without_chain = make_server_context({cert.cert_file, cert.key_file, ""}, {}, error);
  ASSERT_TRUE(without_chain) << error;
  const ClientRun broken = connect_with(without_chain, trusting, "localhost");
  EXPECT_FALSE(broken.ok);
  EXPECT_NE(broken.client_error.find("unable to get local issuer certificate"), std::string::npos)
      << broken.client_error;
}

TEST_F(TlsContextTest, AMissingCaFileIsNamed) {
  std::string error;
  const TlsContext context = make_client_context({.ca_file = certs_->dir() + "/nope.pem"}, error);
  EXPECT_FALSE(context);
  EXPECT_NE(error.find("ca_file '" + certs_->dir() + "/nope.pem'"), std::string::npos) << error;
}

}  // namespace
}  // namespace sluice::transport::test
