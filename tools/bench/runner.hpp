// Owns: the part every scenario shares: the command-line options common to
// all of them, starting each server of the comparison in turn (or using the
// one --target names), in one or several interleaved rounds, putting the
// link emulator in front of it when --link asks, making the run's
// certificates for the servers it speaks TLS to (--tls-server, in the
// scenarios whose clients can), and writing the table, --json and --svg at
// the end. Each server is read over the transport its name asks for
// (server_spec.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net_namespace.hpp"
#include "publisher.hpp"
#include "report.hpp"
#include "server_spec.hpp"
#include "subscriber.hpp"
#include "io/socket.hpp"
#include "svg.hpp"
#include "tls_client.hpp"

namespace sluice::bench {

struct CommonOptions {
  std::string target = "127.0.0.1:8080";  // used when no --server is given
  std::vector<ServerSpec> servers;        // run one after another, in the order given
  std::size_t rounds = 1;                 // --repeat: times the whole list is run, one round after another
  bool tls_insecure = false;              // --tls-server: do not check the server's certificate
  bool h2c = false;                       // servers named without @TRANSPORT are read over h2c
  std::size_t streams_per_connection = 1; // their streams per connection under --h2c
  std::string link;                       // link emulator spec, empty: direct
  std::string limit = "sol";              // the server whose figure is the ceiling
  std::string svg;
  bool json = false;
  bool quiet = false;
};

// What a scenario sees of the server it runs against.
struct ServerUnderTest {
  std::string name;
  io::Endpoint endpoint;  // the link emulator's when --link is set
  io::Endpoint direct;    // the server's own
  int pid = -1;           // -1 for --target
  // The command that started it (certificates filled in), empty for
  // --target: a scenario may start more nodes of the same server.
  std::string command;
  std::string link;       // the link description, empty when direct
  // --link mode=packet: the server runs in server_net, and the scenario
  // makes its readers' sockets in client_net (which reach `endpoint`
  // through the link) and its publishers' in server_net (InNamespace);
  // both null otherwise.
  const NetNamespace* server_net = nullptr;
  const NetNamespace* client_net = nullptr;
  std::shared_ptr<const TlsClient> tls;  // set when the clients speak TLS to it (--tls-server)
  // What the scenario's readers speak (publishers and probes speak
  // HTTP/1.1 whatever this says): HTTP/2 by prior knowledge in clear, by
  // ALPN over TLS.
  HttpVersion http = HttpVersion::http1;
  std::size_t streams_per_connection = 1;  // over HTTP/2
};

using ScenarioFn = std::function<nlohmann::json(const ServerUnderTest&)>;
// Turns all results into the chart; null when the scenario draws none.
using ChartFn = std::function<std::string(const nlohmann::json& results)>;

// Adds --target, --server, --repeat, --link, --limit, --json, --svg,
// --quiet; --tls-server and --tls-insecure when the scenario's clients
// speak TLS (`can.tls`): a --tls-server's command has "{cert}" and "{key}"
// replaced by a certificate the run makes for 127.0.0.1 and localhost,
// signed by a CA the run makes too, which the clients verify the server
// against; and --h2c (with --streams-per-connection when a reader takes
// several streams) when its readers speak HTTP/2 (`can.h2_streams`). A
// server's @TRANSPORT the scenario cannot read is refused as the command
// line is parsed, and so is a --link that does not parse or, unless
// `can.packet_link`, asks for mode=packet.
void add_common_options(CLI::App& command, CommonOptions& options, const Transports& can = {});

// The servers of the run in their order, --h2c applied to those named
// without @TRANSPORT (in clear), or the --target server alone.
[[nodiscard]] std::vector<ServerSpec> servers_of(const CommonOptions& common);

// --proto sse|ws (the subscribers' protocol) and --publish post|ws (how
// publishers send), for the scenarios that offer them.
void add_proto_option(CLI::App& command, Proto& proto);
void add_publish_option(CLI::App& command, PublishMode& mode);

// Runs `scenario` against every server and reports. Returns the exit code:
// 0, or 1 when any server failed the scenario.
int run_scenario(const CommonOptions& common, const ReportSpec& spec, const nlohmann::json& options,
                 const ScenarioFn& scenario, const ChartFn& chart);

// Sleeps in steps of up to one second until `deadline_ns` or `done()`,
// printing `line()` on stderr as a progress line unless quiet.
void wait_with_progress(const CommonOptions& common, std::uint64_t deadline_ns,
                        const std::function<std::string()>& line, const std::function<bool()>& done = {});

// Percentiles of `h` (ns) as microseconds, under the given key prefix.
class Histogram;
void put_latency(nlohmann::json& result, const std::string& prefix, const Histogram& h);

}  // namespace sluice::bench
