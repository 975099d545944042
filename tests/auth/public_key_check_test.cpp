// Keys that cannot stand for a signer: an Edwards point of small order is
// refused, whichever of its encodings is given, and the forgery it would
// let through is shown to be real (which also checks the points listed).
#include "auth/public_key_check.hpp"

#include <openssl/bn.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "auth/jwt_signature.hpp"
#include "token_forge.hpp"

namespace sluice::auth {
namespace {

using test::keys;

constexpr const char* kP25519 = "7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFED";

// y as the key's little-endian bytes, with x's sign bit as given.
std::string encoding(const char* y_hex, int add, bool negative_x, std::size_t size) {
  BIGNUM* y = nullptr;
  EXPECT_NE(BN_hex2bn(&y, y_hex), 0);
  if (add != 0) {
    EXPECT_EQ(BN_add_word(y, static_cast<BN_ULONG>(add)), 1);
  }
  std::string raw(size, '\0');
  EXPECT_EQ(BN_bn2lebinpad(y, reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(size)),
            static_cast<int>(size));
  BN_free(y);
  if (negative_x) raw[size - 1] = static_cast<char>(raw[size - 1] | 0x80);
  return raw;
}

EvpKey raw_key(int type, const std::string& raw) {
  return EvpKey(EVP_PKEY_new_raw_public_key(type, nullptr, reinterpret_cast<const unsigned char*>(raw.data()),
                                            raw.size()));
}

struct SmallPoint {
  const char* y_hex;
  int add;  // y_hex + add, for y = p - 1 and the encodings past p
};

// y = 1, -1, 0 and the two y of the points of order 8, then y = p and
// y = p + 1: 0 and 1 again, written past the field's end.
const std::vector<SmallPoint> kEd25519Small = {
    {"1", 0},
    {"7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEC", 0},
    {"0", 0},
    {"05FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826", 0},
    {"7A03AC9277FDC74EC6CC392CFA53202A0F67100D760B3CBA4FD84D3D706A17C7", 0},
    {kP25519, 0},
    {kP25519, 1},
};

TEST(PublicKeyCheck, RefusesEveryEncodingOfAnEd25519PointOfSmallOrder) {
  for (const SmallPoint& point : kEd25519Small) {
    for (const bool negative_x : {false, true}) {
      const EvpKey key = raw_key(EVP_PKEY_ED25519, encoding(point.y_hex, point.add, negative_x, 32));
      ASSERT_TRUE(key) << point.y_hex;
      EXPECT_FALSE(sound_public_key(key.get())) << point.y_hex << " +" << point.add << " " << negative_x;
    }
  }
}

TEST(PublicKeyCheck, RefusesEd448PointsOfSmallOrder) {
  constexpr const char* kP448 =
      "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE"
      "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF";
  constexpr const char* kMinusOne448 =
      "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE"
      "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE";
  for (const SmallPoint point : {SmallPoint{"1", 0}, SmallPoint{kMinusOne448, 0}, SmallPoint{"0", 0},
                                 SmallPoint{kP448, 1}}) {
    const EvpKey key = raw_key(EVP_PKEY_ED448, encoding(point.y_hex, point.add, false, 57));
    ASSERT_TRUE(key) << point.y_hex;
    EXPECT_FALSE(sound_public_key(key.get())) << point.y_hex;
  }
}

TEST(PublicKeyCheck, TakesSoundKeysOfEveryKind) {
  for (EVP_PKEY* key : {keys().rsa.get(), keys().p256.get(), keys().p384.get(), keys().ed25519.get()}) {
    EXPECT_TRUE(sound_public_key(key));
  }
  EVP_PKEY* ed448 = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED448");
  ASSERT_NE(ed448, nullptr);
  EXPECT_TRUE(sound_public_key(ed448));
  EVP_PKEY_free(ed448);
}

// Why: with a small-order key A, the signature (R = the identity, S = 0)
// holds for any message whose hash k makes [k]A the identity: every message
// for A = the identity, one in eight for a point of order 8. Each listed
// point of order 8 has its forgery found here, so the list is no typo.
TEST(PublicKeyCheck, ASmallOrderKeyVerifiesForgedSignatures) {
  std::string forged(64, '\0');
  forged[0] = 1;  // R: the identity, y = 1
  const std::string signature = test::b64(forged);
  for (const std::size_t i : {0u, 3u, 4u}) {
    JwtKey key;
    key.alg = JwtAlg::eddsa;
    key.public_key = raw_key(EVP_PKEY_ED25519, encoding(kEd25519Small[i].y_hex, 0, false, 32));
    ASSERT_TRUE(key.public_key);
    int forged_messages = 0;
    for (int n = 0; n < 400; ++n) {
      const std::string input = "eyJhbGciOiJFZERTQSJ9." + test::b64("{\"n\":" + std::to_string(n) + "}");
      if (check_signature(key, input, signature) == SignatureCheck::valid) ++forged_messages;
    }
    EXPECT_GT(forged_messages, 0) << kEd25519Small[i].y_hex;
    if (i == 0) {
      EXPECT_EQ(forged_messages, 400);
    }
  }
}

}  // namespace
}  // namespace sluice::auth
