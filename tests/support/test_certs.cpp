#include "test_certs.hpp"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"

namespace sluice::test {

namespace {

using namespace std::chrono_literals;

constexpr const char* kServerExtensions =
    "basicConstraints=critical,CA:FALSE\n"
    "keyUsage=critical,digitalSignature\n"
    "extendedKeyUsage=serverAuth\n";
constexpr const char* kLoopbackNames = "DNS:localhost,IP:127.0.0.1,IP:::1";

constexpr const char* kCaExtensions =
    "basicConstraints=critical,CA:TRUE\n"
    "keyUsage=critical,keyCertSign,cRLSign\n";

std::string temp_root() {
  const char* tmp = ::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace

TestCerts::TestCerts() {
  std::string pattern = temp_root() + "/sluice-certs-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    error_ = "mkdtemp " + pattern + " failed";
    return;
  }
  dir_ = pattern;
  make_ca("ca", "/CN=sluice test CA");
}

TestCerts::~TestCerts() {
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

bool TestCerts::run(const std::vector<std::string>& argv) {
  if (!error_.empty()) return false;
  ChildProcess child(argv);
  child.read_to_end(30s);
  if (child.wait(30s) == 0) return true;
  error_ = argv[0] + " " + argv[1] + " failed: " + child.output();
  return false;
}

std::string TestCerts::write_file(const std::string& name, const std::string& text) {
  const std::string path = dir_ + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A self-signed CA with an EC P-256 key, valid for two days.
bool TestCerts::make_ca(const std::string& name, const std::string& subject) {
  return run({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
              "-keyout", dir_ + "/" + name + ".key", "-out", dir_ + "/" + name + ".pem", "-days", "2", "-subj",
              subject, "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
              "keyUsage=critical,keyCertSign,cRLSign"});
}

// A key and certificate `name`, signed by `signer` (a CA made before).
bool TestCerts::sign(const std::string& name, const std::string& signer, const std::string& extensions) {
  const std::string base = dir_ + "/" + name;
  const std::string ext = write_file(name + ".ext", extensions);
  return run({"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
              base + ".key", "-out", base + ".csr", "-subj", "/CN=" + name}) &&
         run({"openssl", "x509", "-req", "-in", base + ".csr", "-CA", dir_ + "/" + signer + ".pem", "-CAkey",
              dir_ + "/" + signer + ".key", "-set_serial", std::to_string(++serial_), "-days", "2", "-extfile",
              ext, "-out", base + ".pem"});
}

std::string TestCerts::last_serial() const {
  char hex[16];
  std::snprintf(hex, sizeof hex, "%X", serial_);
  return hex;
}

ServerCert TestCerts::server(const std::string& name, const std::string& names) {
  if (!sign(name, "ca", std::string(kServerExtensions) + "subjectAltName=" + names + "\n")) return {};
  return {dir_ + "/" + name + ".pem", dir_ + "/" + name + ".key", "", last_serial()};
}

ServerCert TestCerts::server_via_intermediate(const std::string& name) {
  const std::string intermediate = name + "-intermediate";
  const std::string extensions = std::string(kServerExtensions) + "subjectAltName=" + kLoopbackNames + "\n";
  if (!sign(intermediate, "ca", kCaExtensions) || !sign(name, intermediate, extensions)) return {};
  return {dir_ + "/" + name + ".pem", dir_ + "/" + name + ".key", dir_ + "/" + intermediate + ".pem",
          last_serial()};
}

std::string TestCerts::other_ca(const std::string& name) {
  return make_ca(name, "/CN=" + name) ? dir_ + "/" + name + ".pem" : "";
}

}  // namespace sluice::test
