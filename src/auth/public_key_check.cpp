#include "auth/public_key_check.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>

#include <array>
#include <cstddef>
#include <memory>

namespace sluice::auth {

namespace {

struct BnFree {
  void operator()(BIGNUM* n) const { BN_free(n); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;

Bn from_hex(const char* hex) {
  BIGNUM* n = nullptr;
  return BN_hex2bn(&n, hex) == 0 ? nullptr : Bn(n);
}

// An Edwards curve's small-order points (order 8 or less on Ed25519, 4 or
// less on Ed448) are few, and known by their y alone (x's sign flips a point
// to its negation, of the same order): y = 1 (the identity), y = -1 (order
// 2), y = 0 (order 4), and on Ed25519 the two y of its four points of order
// 8, the roots of y^2 = -x^2 where -2x^2 = 1 - d x^4. A signature check
// against such a point ignores the message for one hash in eight at worst
// (and every one for the identity): a forger tries messages until it holds.
struct EdwardsCurve {
  std::size_t key_bytes;
  const char* p_hex;
  std::array<const char*, 2> order8_y_hex;  // empty where the cofactor is 4
};

constexpr EdwardsCurve kEd25519{
    32,
    "7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFED",  // 2^255 - 19
    {"05FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826",
     "7A03AC9277FDC74EC6CC392CFA53202A0F67100D760B3CBA4FD84D3D706A17C7"}};
constexpr EdwardsCurve kEd448{
    57,
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE"
    "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",  // 2^448 - 2^224 - 1
    {nullptr, nullptr}};

// y from the key's encoding (little-endian, x's sign in the top bit), taken
// modulo p so that a non-canonical encoding of a small-order y is caught too.
bool small_order(EVP_PKEY* key, const EdwardsCurve& curve) {
  unsigned char raw[57] = {};
  std::size_t size = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(key, raw, &size) != 1 || size != curve.key_bytes) return true;
  raw[size - 1] &= 0x7F;
  const Bn p = from_hex(curve.p_hex);
  const Bn y(BN_lebin2bn(raw, static_cast<int>(size), nullptr));
  const std::unique_ptr<BN_CTX, void (*)(BN_CTX*)> ctx(BN_CTX_new(), &BN_CTX_free);
  if (!p || !y || !ctx || BN_nnmod(y.get(), y.get(), p.get(), ctx.get()) != 1) return true;
  const Bn minus_one(BN_dup(p.get()));
  if (!minus_one || BN_sub_word(minus_one.get(), 1) != 1) return true;
  if (BN_is_zero(y.get()) || BN_is_one(y.get()) || BN_cmp(y.get(), minus_one.get()) == 0) return true;
  for (const char* hex : curve.order8_y_hex) {
    if (hex == nullptr) continue;
    const Bn order8_y = from_hex(hex);
    if (!order8_y || BN_cmp(y.get(), order8_y.get()) == 0) return true;
  }
  return false;
}

bool passes_openssl_check(EVP_PKEY* key) {
  const std::unique_ptr<EVP_PKEY_CTX, void (*)(EVP_PKEY_CTX*)> check(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr),
                                                                    &EVP_PKEY_CTX_free);
  return check && EVP_PKEY_public_check(check.get()) == 1;
}

}  // namespace

bool sound_public_key(EVP_PKEY* key) {
  bool sound = key != nullptr && passes_openssl_check(key);
  if (sound && EVP_PKEY_get_id(key) == EVP_PKEY_ED25519) sound = !small_order(key, kEd25519);
  if (sound && EVP_PKEY_get_id(key) == EVP_PKEY_ED448) sound = !small_order(key, kEd448);
  ERR_clear_error();
  return sound;
}

}  // namespace sluice::auth
