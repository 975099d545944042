// sluiced-inproc: sluice as an application embeds it, publishing from a
// thread of its own (Server::publish or Server::publish_waiting) rather
// than over the network. It listens and serves as sluiced does (the same
// --listen, --threads and --set keys, the same banner), and its one
// publishing thread (inproc_publisher.hpp) sends 64-byte events in
// sluice-bench's payload format to one topic at a rate or flat out, once
// the server has --start-after streams open. Built on the public headers
// and sluice::sluice alone.
//
// Clients cannot publish to it: every publish (POST /pub/{topic}, a
// WebSocket on /pub/{topic}, a /ws publish) is refused 403 with the body
// {"generator":true}, the answer sluice-bench's fan-out reads as "this
// server makes its own events" (it then starts no publisher, as with the
// speed-of-light server). The authorizer that refuses them is asked per
// request and per subscription, never per event; while one is installed,
// each WebSocket keeps a copy of its upgrade request (memory per
// connection, as sluiced with auth on).
//
// On SIGINT or SIGTERM it stops publishing, drains like sluiced, and prints
// what the thread published and how often the server made it try again. A
// publish refused for good (a bad --topic, say) stops it too: it exits 1
// with a line naming the status.
//
//   sluiced-inproc --listen 127.0.0.1:0 [--threads N] [--set KEY=VALUE]...
//                  [--topic fanout] [--size 64] [--rate 0]
//                  [--publish publish|waiting] [--wait-ms 200] [--batch 1] [--start-after 1]
//                  [--via name|publisher] [--stamp-every 1]
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "inproc_publisher.hpp"
#include "sluice/server.hpp"

namespace {

using sluice::peers::InprocOptions;
using sluice::peers::InprocPublisher;
using sluice::peers::PublishCall;
using sluice::peers::PublishVia;
namespace srv = sluice::server;

srv::Server* g_server = nullptr;

extern "C" void on_stop_signal(int) {
  if (g_server != nullptr) g_server->stop();
}

int fail(const std::string& why) {
  std::fprintf(stderr, "sluiced-inproc: %s\n", why.c_str());
  return 2;
}

// Clients subscribe; only the thread publishes.
srv::AuthDecision refuse_client_publishes(const srv::AuthRequest& request) {
  if (request.action == srv::Action::publish) return srv::AuthDecision::deny(403, "{\"generator\":true}");
  return srv::AuthDecision::allow();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sluiced-inproc: sluice embedded, publishing the bench's events from a thread"};
  std::string listen;
  std::string threads;
  std::vector<std::string> settings;
  InprocOptions o;
  long long wait_ms = o.wait.count();
  app.add_option("--listen", listen, "HOST:PORT to listen on (default 127.0.0.1:8080; port 0 picks one)");
  app.add_option("--threads", threads, "event loops, one thread each (default: one per core)");
  app.add_option("--set", settings, "KEY=VALUE, a sluiced config key (repeatable)");
  app.add_option("--topic", o.topic, "the topic published to")->capture_default_str();
  app.add_option("--size", o.size, "payload bytes")->capture_default_str()->check(CLI::Range(32, 1 << 20));
  app.add_option("--rate", o.rate, "events/s; 0: as fast as the server takes them")
      ->capture_default_str()->check(CLI::Range(0.0, 1e9));
  app.add_option("--publish", o.call, "publish (never waits) or waiting (publish_waiting)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, PublishCall>{{"publish", PublishCall::publish},
                                                                           {"waiting", PublishCall::waiting}}))
      ->capture_default_str();
  app.add_option("--wait-ms", wait_ms, "publish_waiting's timeout")
      ->capture_default_str()->check(CLI::Range(0LL, static_cast<long long>(srv::kMaxPublishWait.count())));
  app.add_option("--batch", o.batch, "events per call; over 1: publish_batch or publish_batch_waiting")
      ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  app.add_option("--start-after", o.start_after, "open streams the server must have before the first publish")
      ->capture_default_str();
  app.add_option("--via", o.via, "one event per call by the topic's name, or through a Publisher of it")
      ->transform(CLI::CheckedTransformer(std::map<std::string, PublishVia>{{"name", PublishVia::name},
                                                                          {"publisher", PublishVia::publisher}}))
      ->capture_default_str();
  app.add_option("--stamp-every", o.stamp_every,
                 "one event per call: read the clock for one event in this many (up to 4096, as --batch), "
                 "the rest carrying its stamp")
      ->capture_default_str()->check(CLI::Range(std::uint64_t{1}, std::uint64_t{4096}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }
  o.wait = std::chrono::milliseconds(wait_ms);
  if (o.via == PublishVia::publisher && o.batch > 1) {
    return fail("--via publisher publishes one event per call: it takes no --batch over 1");
  }
  if (o.stamp_every > 1 && o.batch > 1) {
    return fail("--stamp-every is for one event per call: a batch reads the clock once per call already");
  }

  srv::Config config;
  for (const std::string& setting : settings) {
    const auto eq = setting.find('=');
    if (eq == std::string::npos) return fail("--set wants KEY=VALUE (got '" + setting + "')");
    if (auto error = srv::apply_setting(config, setting.substr(0, eq), setting.substr(eq + 1))) return fail(*error);
  }
  if (!listen.empty()) {
    if (auto error = srv::apply_setting(config, "listen", listen)) return fail(*error);
  }
  if (!threads.empty()) {
    if (auto error = srv::apply_setting(config, "threads", threads)) return fail(*error);
  }
  if (auto error = srv::validate(config)) return fail(*error);

  srv::Server server(config);
  server.authorize(refuse_client_publishes);
  if (const int rc = server.bind(); rc != 0) return fail("cannot listen on " + config.listen);
  g_server = &server;
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::printf("sluiced-inproc (%zu loops) listening on %s:%u\n", server.loops(),
              config.listen.substr(0, config.listen.rfind(':')).c_str(), static_cast<unsigned>(server.port()));
  std::fflush(stdout);

  InprocPublisher publisher(server, o);
  publisher.start();
  server.run();
  publisher.stop();
  g_server = nullptr;
  const auto& counts = publisher.counts();
  std::fprintf(stderr, "sluiced-inproc: published %llu, busy %llu, timed out %llu\n",
               static_cast<unsigned long long>(counts.published.load()),
               static_cast<unsigned long long>(counts.busy.load()),
               static_cast<unsigned long long>(counts.timed_out.load()));
  if (publisher.error().empty()) return 0;
  std::fprintf(stderr, "sluiced-inproc: %s\n", publisher.error().c_str());
  return 1;
}
