// Building contexts: every setting that decides what a peer may negotiate
// lives here, so that the server and the client cannot drift apart.
#include "transport/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509err.h>

#include <memory>
#include <string_view>
#include <utility>

#include "io/small_file.hpp"
#include "transport/tls_error.hpp"

namespace sluice::transport {

namespace {

// TLS 1.2 suites: forward secrecy (ECDHE) and an AEAD cipher only. TLS 1.3
// keeps OpenSSL's suites, which all qualify.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

constexpr std::string_view kH2 = "h2";
constexpr std::string_view kHttp11 = "http/1.1";

// True when the ALPN wire list (length-prefixed names) holds `name`.
bool offers(const unsigned char* list, unsigned length, std::string_view name) {
  for (unsigned i = 0; i < length;) {
    const unsigned size = list[i];
    if (i + 1 + size > length) return false;
    if (std::string_view(reinterpret_cast<const char*>(list + i + 1), size) == name) return true;
    i += 1 + size;
  }
  return false;
}

// The SSL ex_data slot offer_http11_only() marks a connection in.
int http11_only_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// Our preference, not the client's: h2 carries many streams on one
// connection, which is why a browser's limit of six EventSource
// connections per origin goes away.
template <bool OfferH2>
int select_protocol(SSL* ssl, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
                    unsigned in_length, void* /*arg*/) {
  const bool offer_h2 = OfferH2 && SSL_get_ex_data(ssl, http11_only_index()) == nullptr;
  for (const std::string_view name : {kH2, kHttp11}) {
    if (name == kH2 && !offer_h2) continue;
    if (!offers(in, in_length, name)) continue;
    *out = reinterpret_cast<const unsigned char*>(name.data());
    *out_length = static_cast<unsigned char>(name.size());
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_ALERT_FATAL;  // sends no_application_protocol
}

bool set_common(SSL_CTX* ctx, std::string& error) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1 || SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    error = take_openssl_error("tls: protocol settings");
    return false;
  }
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  return true;
}

// Certificates and keys are read as every file a setting names is
// (io/small_file.hpp), then handed to OpenSSL from memory: OpenSSL's own
// open would wait on a FIFO swapped in after any check, with the loop that
// reloads. A chain of many certificates is tens of KiB.
constexpr std::size_t kMaxTlsFileBytes = 1 << 20;

bool read_tls_file(std::string_view key, const std::string& path, std::string& pem, std::string& error) {
  if (auto why = io::read_small_file(path, kMaxTlsFileBytes, pem)) {
    error = std::string(key) + ": " + *why;
    return false;
  }
  return true;
}

std::string file_error(std::string_view key, const std::string& path) {
  return take_openssl_error(std::string(key) + " '" + path + "'");
}

// Said in the server's words first (OpenSSL's own reason, "unsupported"
// say, names no file kind), then OpenSSL's.
std::string unusable_file(std::string_view key, const std::string& path, std::string_view holds) {
  return take_openssl_error(std::string(key) + " '" + path + "': holds no " + std::string(holds) +
                            " OpenSSL can read, OpenSSL says");
}

// An encrypted key is refused, not asked for: OpenSSL's default would
// prompt for its passphrase on the terminal and wait.
int no_passphrase(char*, int, int, void*) { return 0; }

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using MemoryBio = std::unique_ptr<BIO, BioFree>;

MemoryBio memory_bio(const std::string& pem) {
  return MemoryBio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The PEM certificates left in `bio` go to the context's chain. Returns
// how many, or -1 when OpenSSL refused one.
int add_chain_certificates(SSL_CTX* ctx, BIO* bio) {
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, no_passphrase, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx, cert) != 1) {
      X509_free(cert);
      return -1;
    }
    ++added;
  }
  // Reading stops at the end of the text with a "no start line" error.
  ERR_clear_error();
  return added;
}

// The server's certificate, then the intermediates that may follow it in
// the same file.
bool use_certificate_file(SSL_CTX* ctx, const std::string& path, std::string& error) {
  std::string pem;
  if (!read_tls_file("tls.cert_file", path, pem, error)) return false;
  const MemoryBio bio = memory_bio(pem);
  X509* leaf = bio ? PEM_read_bio_X509_AUX(bio.get(), nullptr, no_passphrase, nullptr) : nullptr;
  const bool used = leaf != nullptr && SSL_CTX_use_certificate(ctx, leaf) == 1;
  X509_free(leaf);
  if (!used || SSL_CTX_clear_chain_certs(ctx) != 1 || add_chain_certificates(ctx, bio.get()) < 0) {
    error = unusable_file("tls.cert_file", path, "PEM certificate");
    return false;
  }
  return true;
}

bool load_chain(SSL_CTX* ctx, const std::string& path, std::string& error) {
  std::string pem;
  if (!read_tls_file("tls.chain_file", path, pem, error)) return false;
  const MemoryBio bio = memory_bio(pem);
  const int added = bio ? add_chain_certificates(ctx, bio.get()) : -1;
  if (added <= 0) error = "tls.chain_file '" + path + "': holds no PEM certificate";
  return added > 0;
}

// Using the key also checks it against the certificate.
bool use_key_file(SSL_CTX* ctx, const std::string& path, std::string& error) {
  std::string pem;
  if (!read_tls_file("tls.key_file", path, pem, error)) return false;
  const MemoryBio bio = memory_bio(pem);
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr) : nullptr;
  // The text held a copy of the key; it goes with the key's use.
  OPENSSL_cleanse(pem.data(), pem.size());
  if (key == nullptr) {
    error = unusable_file("tls.key_file", path, "PEM private key");
    return false;
  }
  const bool used = SSL_CTX_use_PrivateKey(ctx, key) == 1;
  EVP_PKEY_free(key);
  if (!used) {
    const bool mismatch = ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH;
    error = mismatch ? take_openssl_error("tls.key_file '" + path + "' does not match tls.cert_file")
                     : unusable_file("tls.key_file", path, "PEM private key");
  }
  return used;
}

bool load_server_files(SSL_CTX* ctx, const TlsServerFiles& files, std::string& error) {
  if (files.cert_file.empty() || files.key_file.empty()) {
    error = "tls.cert_file and tls.key_file must both be set to serve TLS";
    return false;
  }
  if (!use_certificate_file(ctx, files.cert_file, error)) return false;
  if (!files.chain_file.empty() && !load_chain(ctx, files.chain_file, error)) return false;
  return use_key_file(ctx, files.key_file, error);
}

// ALPN's wire form: each name preceded by its length.
std::string alpn_wire(const std::vector<std::string>& names) {
  std::string wire;
  for (const std::string& name : names) {
    wire.push_back(static_cast<char>(name.size()));
    wire.append(name);
  }
  return wire;
}

}  // namespace

TlsContext::TlsContext(const TlsContext& other) : ctx_(other.ctx_) {
  if (ctx_ != nullptr) SSL_CTX_up_ref(ctx_);
}

TlsContext& TlsContext::operator=(TlsContext other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsContext make_server_context(const TlsServerFiles& files, const TlsServerOptions& options, std::string& error) {
  ERR_clear_error();
  TlsContext context(SSL_CTX_new(TLS_server_method()));
  SSL_CTX* ctx = context.get();
  if (ctx == nullptr) {
    error = take_openssl_error("tls: new context");
    return {};
  }
  if (!set_common(ctx, error) || !load_server_files(ctx, files, error)) return {};
  if (options.tls13_only && SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1) {
    error = take_openssl_error("tls.min_version");
    return {};
  }
  // Resumption by stateless tickets only: a session cache would be a
  // server-side table that every new client adds to.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_alpn_select_cb(ctx, options.offer_h2 ? select_protocol<true> : select_protocol<false>, nullptr);
  return context;
}

void offer_http11_only(SSL* ssl) {
  static int marked = 1;  // any non-null pointer marks it
  SSL_set_ex_data(ssl, http11_only_index(), &marked);
}

TlsContext make_client_context(const TlsClientOptions& options, std::string& error) {
  ERR_clear_error();
  TlsContext context(SSL_CTX_new(TLS_client_method()));
  SSL_CTX* ctx = context.get();
  if (ctx == nullptr) {
    error = take_openssl_error("tls: new context");
    return {};
  }
  if (!set_common(ctx, error)) return {};
  const bool loaded = options.ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx) == 1
                                              : SSL_CTX_load_verify_file(ctx, options.ca_file.c_str()) == 1;
  if (!loaded) {
    error = file_error("ca_file", options.ca_file.empty() ? std::string("(system default)") : options.ca_file);
    return {};
  }
  SSL_CTX_set_verify(ctx, options.verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  const std::string wire = alpn_wire(options.alpn);
  // SSL_CTX_set_alpn_protos returns 0 on success, unlike its neighbours.
  if (!wire.empty() &&
      SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(wire.data()),
                              static_cast<unsigned>(wire.size())) != 0) {
    error = take_openssl_error("tls: alpn");
    return {};
  }
  return context;
}

}  // namespace sluice::transport
