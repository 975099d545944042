// Owns: `sluice token`: mints a signed token granting topics, for trying
// sluiced with auth on, for documentation and for tests:
//   sluice token --secret S --subscribe 'news' --publish 'prices.*' --ttl 3600
//   sluice token --key-file private.pem --sub alice --subscribe '*'
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::cli {

struct TokenOptions {
  std::string secret;    // HS256 (auth.jwt_secret on the server)
  std::string secret_file;  // or the file holding it (its first line), out of the process list
  std::string key_file;  // a private key PEM: RS256, ES256/384/512 or EdDSA by its type
  std::string kid;
  std::string subject;
  std::vector<std::string> subscribe;
  std::vector<std::string> publish;
  std::string audience;
  std::string issuer;
  std::string claim = "sluice";
  std::int64_t ttl_s = 3600;
};

// Prints the token and a newline. Exit status: 0, or 2 with one line on
// stderr for options it cannot mint from.
int run_token(const TokenOptions& options);

}  // namespace sluice::cli
