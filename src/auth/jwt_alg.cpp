#include "auth/jwt_alg.hpp"

#include <array>
#include <utility>

namespace sluice::auth {

namespace {

constexpr std::array<std::pair<std::string_view, JwtAlg>, 10> kNames{{
    {"HS256", JwtAlg::hs256},
    {"HS384", JwtAlg::hs384},
    {"HS512", JwtAlg::hs512},
    {"RS256", JwtAlg::rs256},
    {"RS384", JwtAlg::rs384},
    {"RS512", JwtAlg::rs512},
    {"ES256", JwtAlg::es256},
    {"ES384", JwtAlg::es384},
    {"ES512", JwtAlg::es512},
    {"EdDSA", JwtAlg::eddsa},
}};

}  // namespace

std::optional<JwtAlg> parse_jwt_alg(std::string_view name) {
  for (const auto& [text, alg] : kNames) {
    if (text == name) return alg;
  }
  return std::nullopt;
}

std::string_view jwt_alg_name(JwtAlg alg) {
  for (const auto& [text, candidate] : kNames) {
    if (candidate == alg) return text;
  }
  return "?";
}

KeyKind key_kind(JwtAlg alg) {
  switch (alg) {
    case JwtAlg::hs256:
    case JwtAlg::hs384:
    case JwtAlg::hs512: return KeyKind::secret;
    case JwtAlg::rs256:
    case JwtAlg::rs384:
    case JwtAlg::rs512: return KeyKind::rsa;
    case JwtAlg::es256:
    case JwtAlg::es384:
    case JwtAlg::es512: return KeyKind::ec;
    case JwtAlg::eddsa: return KeyKind::okp;
  }
  return KeyKind::secret;
}

std::size_t min_secret_bytes(JwtAlg alg) {
  switch (alg) {
    case JwtAlg::hs256: return 32;
    case JwtAlg::hs384: return 48;
    case JwtAlg::hs512: return 64;
    default: return 0;
  }
}

std::string_view ec_group_for(JwtAlg alg) {
  switch (alg) {
    case JwtAlg::es256: return "prime256v1";
    case JwtAlg::es384: return "secp384r1";
    case JwtAlg::es512: return "secp521r1";
    default: return {};
  }
}

}  // namespace sluice::auth
