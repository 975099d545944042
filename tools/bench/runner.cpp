#include "runner.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "clock.hpp"
#include "histogram.hpp"
#include "link_proxy.hpp"
#include "net.hpp"
#include "net_namespace.hpp"
#include "packet_link.hpp"
#include "run_certificates.hpp"
#include "server_process.hpp"

namespace sluice::bench {

namespace {

// The run's certificates, made when the first TLS server needs them.
const RunCertificates& run_certificates() {
  static const RunCertificates certs;
  return certs;
}

// Runs the scenario against one server: starts it, puts the link in front.
nlohmann::json run_one(const CommonOptions& common, const ServerSpec& named, const ScenarioFn& scenario) {
  ServerUnderTest sut{.name = named.name, .http = named.http, .streams_per_connection = named.streams_per_connection};
  if (named.tls && common.h2c && !named.transport_named) {
    return {{"server", named.name},
            {"error", "--h2c is HTTP/2 in clear text: name this TLS server " + named.name +
                          "@h2 to read it over HTTP/2 chosen by ALPN, or " + named.name + "@h1"}};
  }
  LinkOptions link;
  if (!common.link.empty()) {
    if (std::string error = parse_link(common.link, link); !error.empty()) return {{"server", named.name}, {"error", error}};
  }
  const bool packet = !common.link.empty() && link.mode == LinkMode::packet;
  if (packet && named.command.empty()) {
    return {{"server", named.name}, {"error", "--link mode=packet puts the server in a namespace of its own: name it with --server NAME=COMMAND"}};
  }
  // Made first: the server starts inside it. Declared before the process,
  // so that it goes after the server stopped.
  std::unique_ptr<PacketLink> packet_link;
  if (packet) {
    packet_link = std::make_unique<PacketLink>(link);
    if (std::string error = packet_link->start(); !error.empty()) {
      return {{"server", named.name}, {"error", "packet link: " + error}};
    }
    sut.server_net = &packet_link->server_side();
    sut.client_net = &packet_link->client_side();
  }
  ServerProcess process;
  std::string command = named.command;
  if (named.tls) {
    const RunCertificates& certs = run_certificates();
    if (!certs.error().empty()) return {{"server", named.name}, {"error", "certificates: " + certs.error()}};
    command = with_certificate(command, certs);
    std::string error;
    sut.tls = TlsClient::make(certs.ca_file(), !common.tls_insecure, "127.0.0.1", error);
    if (!sut.tls) return {{"server", named.name}, {"error", error}};
  }
  // Under mode=packet the server is started (and the probes below dial it)
  // in the link's server side; the scenario places its own clients.
  InNamespace on_server_side(sut.server_net);
  if (packet && !on_server_side.entered()) return {{"server", named.name}, {"error", "cannot enter the packet link's server side"}};
  if (command.empty()) {
    if (!io::parse_endpoint(common.target, sut.direct)) return {{"server", named.name}, {"error", "bad --target"}};
    // Said up front, or every scenario reports its own symptom of it.
    const int probe = dial(sut.direct);
    if (probe < 0) {
      return {{"server", named.name},
              {"error", "cannot connect to --target " + common.target + ": " + std::strerror(-probe) +
                            " (start sluiced, e.g. `make run`, or name servers with --server NAME=COMMAND)"}};
    }
    ::close(probe);
  } else {
    if (std::string error = process.start(command); !error.empty()) return {{"server", named.name}, {"error", error}};
    sut.direct = process.endpoint();
    sut.pid = process.pid();
    sut.command = command;
  }
  // A certificate the clients refuse is said once, with OpenSSL's reason,
  // rather than as every subscriber's failure.
  if (sut.tls) {
    const int fd = dial(sut.direct);
    Channel probe;
    const std::string why = fd < 0 ? "cannot connect" : probe.open(fd, sut.tls.get(), sut.http);
    if (fd >= 0) ::close(fd);
    if (!why.empty()) return {{"server", named.name}, {"tls", true}, {"error", why}};
  }
  on_server_side.leave();
  // Under mode=packet the readers dial the server's own address from their
  // namespace, whose 127.0.0.0/8 is the link.
  sut.endpoint = sut.direct;
  std::unique_ptr<LinkProxy> proxy;
  if (!common.link.empty() && !packet) {
    proxy = std::make_unique<LinkProxy>(sut.direct, link);
    if (proxy->start() != 0) return {{"server", named.name}, {"error", "link emulator cannot listen"}};
    sut.endpoint = proxy->endpoint();
  }
  if (!common.link.empty()) sut.link = describe_link(link);
  nlohmann::json result = scenario(sut);
  result["server"] = named.name;
  if (named.tls) result["tls"] = true;
  if (named.http == HttpVersion::h2) {
    result["transport"] = transport_name(named);
    result["streams_per_connection"] = named.streams_per_connection;
  }
  if (!sut.link.empty()) result["link"] = sut.link;
  if (packet_link) {
    // What the link carried shows that the readers' bytes went through it.
    result["link_packets"] = {{"down", packet_link->down().packets.load()}, {"up", packet_link->up().packets.load()},
                              {"down_bytes", packet_link->down().bytes.load()},
                              {"dropped_down", packet_link->down().dropped.load()},
                              {"dropped_up", packet_link->up().dropped.load()}};
  }
  return result;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

namespace {

// A --server or --tls-server, parsed as it comes (so that plain and TLS
// servers run in the order given) and refused there when the scenario
// cannot read its transport.
void add_server_option(CLI::App& command, CommonOptions& options, const Transports& can, bool tls,
                       const std::string& name, const std::string& help) {
  command
      .add_option_function<std::string>(
          name,
          [&options, can, tls, name](const std::string& text) {
            ServerSpec spec;
            if (std::string error = parse_server_spec(text, tls, can, spec); !error.empty()) {
              throw CLI::ValidationError(name, error);
            }
            options.servers.push_back(std::move(spec));
          },
          help)
      ->trigger_on_parse();
}

}  // namespace

void add_common_options(CLI::App& command, CommonOptions& options, const Transports& can) {
  command.add_option("--target", options.target, "HOST:PORT of a running server (when no --server is given)");
  std::string transports;
  if (can.h2_streams > 0) {
    transports = std::string("; NAME@h2c") + (can.h2_streams > 1 ? "[/K]" : "") +
                 "=COMMAND reads it over HTTP/2 by prior knowledge" + (can.h2_streams > 1 ? ", K streams to a connection" : "") +
                 ", NAME@h1=COMMAND over HTTP/1.1 whatever --h2c says; the row's name is NAME@...";
  }
  add_server_option(command, options, can, false, "--server",
                    "NAME=COMMAND: start this server (it must print 'listening on HOST:PORT'), run, stop; repeatable" +
                        transports);
  if (can.tls) {
    add_server_option(command, options, can, true, "--tls-server",
                      "NAME=COMMAND: like --server, spoken to over TLS; {cert} and {key} in COMMAND become a "
                      "certificate for 127.0.0.1 made for this run, verified against the run's own CA" +
                          std::string(can.h2_streams > 0 ? std::string("; NAME@h2") + (can.h2_streams > 1 ? "[/K]" : "") +
                                                               "=COMMAND reads it over HTTP/2 chosen by ALPN"
                                                         : ""));
    command.add_flag("--tls-insecure", options.tls_insecure,
                     "do not verify --tls-server certificates (a server with a certificate of its own)");
  }
  if (can.h2_streams > 0) {
    command.add_flag("--h2c", options.h2c,
                     "read every --server named without @TRANSPORT over HTTP/2 by prior knowledge (h2c)");
  }
  if (can.h2_streams > 1) {
    command.add_option("--streams-per-connection", options.streams_per_connection,
                       "with --h2c: streams on each connection of those servers")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, can.h2_streams));
  }
  command.add_option("--repeat", options.rounds,
                     "run the whole list of servers this many times, one round after another (A B A B), so that "
                     "what else the machine does falls on each alike; a row per server per round")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100}));
  command
      .add_option("--link", options.link,
                  "emulated link between client and server: rate=3mbit,delay=20ms,window=5760,client=shallow "
                  "(a TCP proxy), or rate=3mbit,delay=20ms,mode=packet,queue=64k (IP packets between network "
                  "namespaces, TCP end to end; needs root" +
                      std::string(can.packet_link ? ")" : "; not in this scenario)"))
      ->check([packet_ok = can.packet_link](const std::string& spec) {
        LinkOptions link;
        std::string error = parse_link(spec, link);
        if (error.empty() && link.mode == LinkMode::packet && !packet_ok) {
          error = "mode=packet: this scenario does not place its clients in the link's namespaces (slow-consumer does)";
        }
        return error;
      });
  command.add_option("--limit", options.limit, "name of the server whose figure is the ceiling (vs limit column; per round)");
  command.add_option("--svg", options.svg, "write a chart to this file");
  command.add_flag("--json", options.json, "print the results as JSON on stdout (the table goes to stderr)");
  command.add_flag("--quiet", options.quiet, "no progress line");
}

std::vector<ServerSpec> servers_of(const CommonOptions& common) {
  std::vector<ServerSpec> out = common.servers;
  if (out.empty()) out.push_back({.name = "target"});
  for (ServerSpec& spec : out) {
    if (spec.transport_named || spec.tls || !common.h2c) continue;
    spec.http = HttpVersion::h2;
    spec.streams_per_connection = common.streams_per_connection;
  }
  return out;
}

// Taken as text and checked against the names, so that help and errors
// show the names (CLI11 would print a one-byte enum's values as bytes).
void add_proto_option(CLI::App& command, Proto& proto) {
  command
      .add_option_function<std::string>(
          "--proto", [&proto](const std::string& name) { proto = name == "ws" ? Proto::ws : Proto::sse; },
          "subscribers' protocol: sse (GET /sse/{topic}) or ws (GET /ws/{topic})")
      ->check(CLI::IsMember({"sse", "ws"}))
      ->default_str("sse");
}

void add_publish_option(CLI::App& command, PublishMode& mode) {
  command
      .add_option_function<std::string>(
          "--publish", [&mode](const std::string& name) { mode = name == "ws" ? PublishMode::ws : PublishMode::post; },
          "post: POST /pub/{topic}; ws: one WebSocket on /pub/{topic} per publisher")
      ->check(CLI::IsMember({"post", "ws"}))
      ->default_str("post");
}

int run_scenario(const CommonOptions& common, const ReportSpec& spec, const nlohmann::json& options,
                 const ScenarioFn& scenario, const ChartFn& chart) {
  nlohmann::json results = nlohmann::json::array();
  bool failed = false;
  const std::vector<ServerSpec> servers = servers_of(common);
  for (std::size_t round = 1; round <= common.rounds; ++round) {
    // Each round's figures are set against that round's limit.
    nlohmann::json these = nlohmann::json::array();
    for (const ServerSpec& named : servers) {
      if (!common.quiet) {
        std::fprintf(stderr, "%s: %s", spec.scenario.c_str(), named.name.c_str());
        if (common.rounds > 1) std::fprintf(stderr, " (round %zu of %zu)", round, common.rounds);
        std::fputs("\n", stderr);
      }
      these.push_back(run_one(common, named, scenario));
      if (common.rounds > 1) these.back()["round"] = round;
      failed = failed || these.back().contains("error");
    }
    add_ratios(spec, common.limit, these);
    for (nlohmann::json& r : these) results.push_back(std::move(r));
  }
  ReportSpec shown = spec;
  if (common.rounds > 1) shown.columns.insert(shown.columns.begin(), {"round", "round", 1, 0});
  const std::string table = format_table(shown, results);
  std::fputs(table.c_str(), common.json ? stderr : stdout);
  if (common.json) {
    const nlohmann::json doc = {{"scenario", spec.scenario}, {"machine", describe_machine()}, {"options", options},
                                {"headline", spec.headline}, {"results", results}};
    std::printf("%s\n", doc.dump(2).c_str());
  }
  if (!common.svg.empty() && chart) write_file(common.svg, chart(results));
  return failed ? 1 : 0;
}

void wait_with_progress(const CommonOptions& common, std::uint64_t deadline_ns,
                        const std::function<std::string()>& line, const std::function<bool()>& done) {
  const std::uint64_t start = now_ns();
  std::uint64_t next_print = start + kNsPerSec;
  for (std::uint64_t now = start; now < deadline_ns && !(done && done()); now = now_ns()) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<std::uint64_t>(deadline_ns - now, 100 * kNsPerMs)));
    if (common.quiet || now_ns() < next_print) continue;
    next_print += kNsPerSec;
    std::fprintf(stderr, "\r  %5.1fs  %s   ", static_cast<double>(now_ns() - start) / 1e9, line().c_str());
  }
  if (!common.quiet) std::fputs("\n", stderr);
}

void put_latency(nlohmann::json& result, const std::string& prefix, const Histogram& h) {
  const auto us = [](std::uint64_t ns) { return static_cast<double>(ns) / 1e3; };
  result[prefix + "_samples"] = h.count();
  if (h.count() == 0) return;  // no figure rather than a zero (an unstamped stream)
  result[prefix + "_p50_us"] = us(h.percentile(50));
  result[prefix + "_p90_us"] = us(h.percentile(90));
  result[prefix + "_p99_us"] = us(h.percentile(99));
  result[prefix + "_p999_us"] = us(h.percentile(99.9));
  result[prefix + "_max_us"] = us(h.max());
}

}  // namespace sluice::bench
