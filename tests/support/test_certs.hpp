// Owns: TestCerts, certificates made at test time with the openssl command
// in a temporary directory of their own (removed again at the end): a CA,
// and server certificates it signs for 127.0.0.1, ::1 and localhost,
// directly or through an intermediate. Nothing of it is ever committed.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace sluice::test {

struct ServerCert {
  std::string cert_file;   // the server's certificate
  std::string key_file;    // its private key
  std::string chain_file;  // the intermediate that signed it, or empty
  std::string serial;      // the certificate's serial number, in hex: tells two apart
};

class TestCerts {
 public:
  // Makes the directory and the CA; ok() says whether that worked.
  TestCerts();
  ~TestCerts();
  TestCerts(const TestCerts&) = delete;
  TestCerts& operator=(const TestCerts&) = delete;

  [[nodiscard]] bool ok() const { return error_.empty(); }
  // What failed: the command and its output.
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] const std::string& dir() const { return dir_; }
  [[nodiscard]] std::string ca_file() const { return dir_ + "/ca.pem"; }

  // A certificate signed by the CA; `name` names its files (and its CN);
  // `names` is its subjectAltName. Empty paths when a command failed (see
  // error()).
  ServerCert server(const std::string& name,
                    const std::string& names = "DNS:localhost,IP:127.0.0.1,IP:::1");
  // A certificate signed by an intermediate CA that the CA signed; the
  // intermediate is in chain_file, which a server must send along.
  ServerCert server_via_intermediate(const std::string& name);
  // A CA of its own, unrelated to this one (for "untrusted" cases).
  std::string other_ca(const std::string& name);

 private:
  bool run(const std::vector<std::string>& argv);
  bool make_ca(const std::string& name, const std::string& subject);
  bool sign(const std::string& name, const std::string& signer, const std::string& extensions);
  std::string write_file(const std::string& name, const std::string& text);
  [[nodiscard]] std::string last_serial() const;

  std::string dir_;
  std::string error_;
  int serial_ = 1000;
};

// A test whose server speaks TLS: a CA, and one certificate it signs,
// named `name`, made before each test.
class ServerCertTest : public ::testing::Test {
 protected:
  explicit ServerCertTest(std::string name) : name_(std::move(name)) {}
  void SetUp() override {
    ASSERT_TRUE(certs_.ok()) << certs_.error();
    cert_ = certs_.server(name_);
    ASSERT_FALSE(cert_.cert_file.empty()) << certs_.error();
  }

  TestCerts certs_;
  ServerCert cert_;

 private:
  std::string name_;
};

}  // namespace sluice::test
