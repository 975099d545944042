#include "openssl_memory.hpp"

#include <openssl/crypto.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace sluice::transport::test {

namespace {

// Each block carries its size in front, so that free() knows what to
// subtract. 16 bytes keep the caller's pointer aligned for anything.
constexpr std::size_t kHeader = 16;

std::atomic<long> g_live{0};
std::atomic<long> g_allocations{0};

void* counted_malloc(std::size_t size, const char* /*file*/, int /*line*/) {
  auto* block = static_cast<unsigned char*>(std::malloc(size + kHeader));
  if (block == nullptr) return nullptr;
  std::memcpy(block, &size, sizeof size);
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_live.fetch_add(static_cast<long>(size), std::memory_order_relaxed);
  return block + kHeader;
}

void counted_free(void* pointer, const char* /*file*/, int /*line*/) {
  if (pointer == nullptr) return;
  auto* block = static_cast<unsigned char*>(pointer) - kHeader;
  std::size_t size = 0;
  std::memcpy(&size, block, sizeof size);
  g_live.fetch_sub(static_cast<long>(size), std::memory_order_relaxed);
  std::free(block);
}

void* counted_realloc(void* pointer, std::size_t size, const char* file, int line) {
  if (pointer == nullptr) return counted_malloc(size, file, line);
  if (size == 0) {
    counted_free(pointer, file, line);
    return nullptr;
  }
  void* fresh = counted_malloc(size, file, line);
  if (fresh == nullptr) return nullptr;
  std::size_t old = 0;
  std::memcpy(&old, static_cast<unsigned char*>(pointer) - kHeader, sizeof old);
  std::memcpy(fresh, pointer, old < size ? old : size);
  counted_free(pointer, file, line);
  return fresh;
}

// Runs before main(), ahead of any OpenSSL call the tests make.
const bool g_installed = CRYPTO_set_mem_functions(counted_malloc, counted_realloc, counted_free) == 1;

}  // namespace

long openssl_live_bytes() { return g_installed ? g_live.load(std::memory_order_relaxed) : -1; }

long openssl_allocations() { return g_installed ? g_allocations.load(std::memory_order_relaxed) : -1; }

}  // namespace sluice::transport::test
