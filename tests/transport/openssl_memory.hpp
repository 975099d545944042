// Owns: a count of the bytes OpenSSL holds on the heap, for the tests that
// say what one TLS connection costs. Linking this file routes OpenSSL's
// allocations through a counter, installed before OpenSSL's first one.
#pragma once

#include <cstddef>

namespace sluice::transport::test {

// Bytes OpenSSL has allocated and not yet freed, on all threads; -1 when
// the counter could not be installed (OpenSSL had allocated already).
[[nodiscard]] long openssl_live_bytes();
// Allocations OpenSSL has made so far (malloc and realloc).
[[nodiscard]] long openssl_allocations();

}  // namespace sluice::transport::test
