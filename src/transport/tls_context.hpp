// Owns: TlsContext, a counted reference to one OpenSSL SSL_CTX (the
// certificate, key, protocol versions, ciphers and ALPN choice every
// connection made from it shares), and the two ways one is built: for the
// server from its certificate and key files, for a client from the CAs it
// trusts.
//
// An SSL made from a context holds a reference of its own (SSL_new takes
// one), so replacing the context a server hands to new connections never
// disturbs the connections already open: each keeps the certificate it was
// made with until it closes.
#pragma once

#include <openssl/types.h>

#include <string>
#include <vector>

namespace sluice::transport {

class TlsContext {
 public:
  TlsContext() = default;
  // Takes over one reference the caller holds (null makes an empty context).
  explicit TlsContext(SSL_CTX* adopted) : ctx_(adopted) {}
  TlsContext(const TlsContext& other);
  TlsContext(TlsContext&& other) noexcept : ctx_(other.ctx_) { other.ctx_ = nullptr; }
  TlsContext& operator=(TlsContext other) noexcept;
  ~TlsContext();

  [[nodiscard]] SSL_CTX* get() const { return ctx_; }
  explicit operator bool() const { return ctx_ != nullptr; }

 private:
  SSL_CTX* ctx_ = nullptr;
};

// The server's certificate: the keys tls.cert_file, tls.key_file and
// tls.chain_file.
struct TlsServerFiles {
  std::string cert_file;   // PEM: the server's certificate (intermediates may follow it)
  std::string key_file;    // PEM: its private key
  std::string chain_file;  // PEM: intermediates sent after the certificate; empty: none
};

struct TlsServerOptions {
  // ALPN: offer "h2" besides "http/1.1". A client that offers neither fails
  // the handshake with a no_application_protocol alert; one that sends no
  // ALPN at all gets HTTP/1.1.
  bool offer_h2 = true;
  // Refuse TLS 1.2 (tls.min_version = 13): a client that offers only 1.2
  // gets a protocol_version alert.
  bool tls13_only = false;
};

// Builds a server context: TLS 1.2 and 1.3 only, ECDHE with AEAD ciphers
// for TLS 1.2 (TLS 1.3's suites are all AEAD), no renegotiation, no
// compression, stateless session tickets for resumption (OpenSSL's default)
// and no server-side session cache, so that no table grows with the number
// of clients. Buffers of idle connections are given back
// (SSL_MODE_RELEASE_BUFFERS). On failure returns an empty context and sets
// `error` to one line naming the key and the reason, e.g.
// "tls.key_file '/etc/k.pem': no such file".
[[nodiscard]] TlsContext make_server_context(const TlsServerFiles& files, const TlsServerOptions& options,
                                             std::string& error);
// `ssl`, of a server context, chooses "http/1.1" by ALPN even where its
// context offers "h2": a listener whose routes are HTTP/1.1's (the admin
// API) shares the server's context.
void offer_http11_only(SSL* ssl);

struct TlsClientOptions {
  std::string ca_file;  // PEM CAs to trust; empty: the system's (OpenSSL's default paths)
  // Check the server's chain and that its certificate names the host. Off
  // only by an explicit choice (the CLI's --insecure, tests).
  bool verify = true;
  std::vector<std::string> alpn;  // protocols to offer, most preferred first; empty: no ALPN
};

// Builds a client context (TLS 1.2 and 1.3). Errors as above, naming
// "ca_file" when the CA file cannot be read.
[[nodiscard]] TlsContext make_client_context(const TlsClientOptions& options, std::string& error);

}  // namespace sluice::transport
