// sluice: the command-line client. `sluice sub URL` prints a stream's
// events as they arrive; `sluice pub URL` publishes standard input, one
// event per line; `sluice token` mints a token for a server with auth on.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "interrupt.hpp"
#include "pub_command.hpp"
#include "sub_command.hpp"
#include "token_command.hpp"

namespace {

void add_sub(CLI::App& app, sluice::cli::SubOptions& o) {
  CLI::App* sub = app.add_subcommand("sub", "print a stream's events, one per line, reconnecting and resuming");
  sub->add_option("url", o.url,
                  "http(s)://HOST:PORT/sse/TOPIC, or ws(s)://HOST:PORT/ws/TOPIC; several topics: ws(s)://HOST:PORT/"
                  "ws?topic=A&topic=B, which resumes each (an SSE stream of several, /sse?topic=A&topic=B, cannot "
                  "resume: one id names no topic, and the server tells each topic's reset)")
      ->required();
  sub->add_flag("--json", o.json, "one JSON object per line instead of 'ID EVENT DATA'");
  sub->add_option("--last-id", o.last_id, "resume after this event id");
  sub->add_flag("--latest", o.latest, "when printing falls behind, skip to the newest event (counted)");
  sub->add_option("--policy", o.policy, "the server's slow-consumer policy for the stream (fifo, latest, ...)")
      ->check(CLI::IsMember({"fifo", "drop-oldest", "drop-newest", "latest", "disconnect"}));
  sub->add_option("--max-event-bytes", o.max_event_bytes,
                  "the largest event's data taken, in bytes; a larger one breaks the stream, which is retried")
      ->check(CLI::Range(std::size_t{1}, std::size_t{256} << 20))
      ->capture_default_str();
  sub->add_option("--max-attempts", o.max_attempts, "give up after this many failed connections in a row (0: never)");
  sub->add_option("--cacert", o.ca_file, "https/wss: trust the CAs in this PEM file instead of the system's");
  sub->add_flag("--insecure", o.insecure, "https/wss: do not check the server's certificate (tests only)");
  CLI::Option* http1 = sub->add_flag("--http1", o.http1, "SSE over HTTP/1.1 even when the server offers HTTP/2");
  sub->add_flag("--http2-prior-knowledge", o.http2_prior_knowledge, "SSE over HTTP/2 on http:// too (h2c)")
      ->excludes(http1);
  sub->add_option("--token-file", o.token_file,
                  "a file holding the bearer token, read at each connection; ws:// also reads it again before the "
                  "token expires and refreshes the connection in place");
}

void add_pub(CLI::App& app, sluice::cli::PubOptions& o) {
  CLI::App* pub = app.add_subcommand("pub", "publish each line of standard input as one event");
  pub->add_option("url", o.url, "http(s)://HOST:PORT/pub/TOPIC, with ?event=NAME and ?key=K as wanted")->required();
  pub->add_flag("-v,--verbose", o.verbose, "print each event's id");
  pub->add_option("--max-line", o.max_line, "longest line accepted, in bytes")
      ->check(CLI::Range(1, 64 << 20))
      ->capture_default_str();
  pub->add_option_function<long long>(
         "--timeout", [&o](long long ms) { o.timeout = std::chrono::milliseconds(ms); },
         "milliseconds a publish may take, connecting included (default 10000)")
      ->check(CLI::Range(1LL, 3'600'000LL));
  pub->add_option("--cacert", o.ca_file, "https: trust the CAs in this PEM file instead of the system's");
  pub->add_flag("--insecure", o.insecure, "https: do not check the server's certificate (tests only)");
  CLI::Option* token = pub->add_option(
      "--token", o.token, "the bearer token (other users of this machine may see it in the process list while "
                          "sluice starts: prefer --token-file)");
  pub->add_option("--token-file", o.token_file, "a file holding the bearer token, read again for each line")
      ->excludes(token);
}

// A token given on the command line is wiped from the process's arguments
// once CLI11 has its own copy, so that `ps` and /proc/PID/cmdline show it
// only for the moment between exec and here.
void wipe_token_arguments(int argc, char** argv) {
  bool next_is_token = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    const bool inline_value = arg.starts_with("--token=");
    if (next_is_token || inline_value) {
      const std::size_t from = inline_value ? std::strlen("--token=") : 0;
      std::memset(argv[i] + from, 'x', arg.size() - from);
    }
    next_is_token = arg == "--token";
  }
}

void add_token(CLI::App& app, sluice::cli::TokenOptions& o) {
  CLI::App* token = app.add_subcommand("token", "mint a signed token granting topics (prints it)");
  CLI::Option* secret = token->add_option(
      "--secret", o.secret,
      "HS256 secret, at least 32 bytes (the server's auth.jwt_secret; other users of this machine may see it in "
      "the process list: prefer --secret-file)");
  token->add_option("--secret-file", o.secret_file, "a file whose first line is the HS256 secret")->excludes(secret);
  token->add_option("--key-file", o.key_file, "private key PEM: RS256, ES256/384/512 or EdDSA by its type");
  token->add_option("--subscribe", o.subscribe, "topic pattern it may subscribe to: NAME, PREFIX.* or * (repeatable)");
  token->add_option("--publish", o.publish, "topic pattern it may publish on (repeatable)");
  token->add_option("--ttl", o.ttl_s, "seconds until it expires (a number: 3600 for an hour)")
      ->check(CLI::Range(1, 366 * 24 * 3600))
      ->capture_default_str();
  token->add_option("--sub", o.subject, "subject (sub): who holds it, for per-identity limits");
  token->add_option("--aud", o.audience, "audience (aud): the server's auth.audience");
  token->add_option("--iss", o.issuer, "issuer (iss): the server's auth.issuer");
  token->add_option("--kid", o.kid, "key id (kid) for the header, to pick a key from a JWKS");
  token->add_option("--claim", o.claim, "name of the grants claim (the server's auth.claim)");
}

int run(int argc, char** argv) {
  CLI::App app{"sluice: subscribe to and publish on a sluice server"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sluice " SLUICE_VERSION, "print the version and exit");
  sluice::cli::SubOptions sub;
  sluice::cli::PubOptions pub;
  sluice::cli::TokenOptions token;
  add_sub(app, sub);
  add_pub(app, pub);
  add_token(app, token);
  try {
    app.parse(argc, argv);
    wipe_token_arguments(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A word where the command goes that names none: said so, where the
    // parser would say a command is required.
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      std::fprintf(stderr, "sluice: no command '%s': use sub, pub or token (sluice --help)\n", argv[1]);
      return 2;
    }
    std::fprintf(stderr, "sluice: %s\n", e.what());
    return 2;
  }
  if (app.got_subcommand("token")) return sluice::cli::run_token(token);
  sluice::cli::install_interrupt_handlers();
  if (app.got_subcommand("sub")) return sluice::cli::run_sub(sub);
  return sluice::cli::run_pub(pub);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // out of memory, say: one line, not an abort
    std::fprintf(stderr, "sluice: %s\n", e.what());
    return 1;
  }
}
