// Owns: RunCertificates, the certificates of one bench run for the servers
// it speaks TLS to: a CA and a server certificate it signs for 127.0.0.1,
// ::1 and localhost (EC P-256, valid two days), made with the openssl
// command in a temporary directory that goes when the run ends. The bench
// verifies every TLS server against that CA, so a run measures the same
// handshake and checks a deployment makes; nothing is ever committed.
#pragma once

#include <string>
#include <vector>

namespace sluice::bench {

class RunCertificates {
 public:
  // Makes the directory, the CA and the server's certificate; error() says
  // what failed (the command and its output).
  RunCertificates();
  ~RunCertificates();
  RunCertificates(const RunCertificates&) = delete;
  RunCertificates& operator=(const RunCertificates&) = delete;

  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] std::string ca_file() const { return dir_ + "/ca.pem"; }
  [[nodiscard]] std::string cert_file() const { return dir_ + "/server.pem"; }
  [[nodiscard]] std::string key_file() const { return dir_ + "/server.key"; }

 private:
  bool run(const std::vector<std::string>& argv);

  std::string dir_;
  std::string error_;
};

// `command` with every "{cert}" and "{key}" replaced by those files.
[[nodiscard]] std::string with_certificate(std::string command, const RunCertificates& certs);

}  // namespace sluice::bench
