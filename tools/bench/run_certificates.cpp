#include "run_certificates.hpp"

#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace sluice::bench {

namespace {

constexpr const char* kServerExtensions =
    "basicConstraints=CA:FALSE\n"
    "keyUsage=critical,digitalSignature\n"
    "extendedKeyUsage=serverAuth\n"
    "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n";

std::string temp_root() {
  const char* tmp = ::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

void replace_all(std::string& text, std::string_view what, const std::string& with) {
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
}

}  // namespace

RunCertificates::RunCertificates() {
  std::string pattern = temp_root() + "/sluice-bench-certs-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    error_ = "mkdtemp " + pattern + " failed";
    return;
  }
  dir_ = pattern;
  std::ofstream(dir_ + "/server.ext") << kServerExtensions;
  const std::vector<std::string> new_key = {"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                            "-nodes"};
  std::vector<std::string> ca = new_key;
  ca.insert(ca.end(), {"-x509", "-days", "2", "-keyout", dir_ + "/ca.key", "-out", dir_ + "/ca.pem", "-subj", "/CN=sluice-bench CA",
                       "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"});
  std::vector<std::string> request = new_key;
  request.insert(request.end(), {"-keyout", key_file(), "-out", dir_ + "/server.csr", "-subj", "/CN=localhost"});
  (void)(run(ca) && run(request) &&
         run({"openssl", "x509", "-req", "-in", dir_ + "/server.csr", "-CA", ca_file(), "-CAkey", dir_ + "/ca.key",
              "-set_serial", "1", "-days", "2", "-extfile", dir_ + "/server.ext", "-out", cert_file()}));
}

RunCertificates::~RunCertificates() {
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

// Runs `argv` with its output in dir/openssl.log, which error() quotes.
bool RunCertificates::run(const std::vector<std::string>& argv) {
  if (!error_.empty()) return false;
  const std::string log = dir_ + "/openssl.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int status = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::ifstream in(log);
  const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  error_ = "openssl " + argv[1] + " failed: " + (rc != 0 ? "cannot start openssl" : output);
  return false;
}

std::string with_certificate(std::string command, const RunCertificates& certs) {
  replace_all(command, "{cert}", certs.cert_file());
  replace_all(command, "{key}", certs.key_file());
  return command;
}

}  // namespace sluice::bench
