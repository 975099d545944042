// Owns: the part every scenario shares: the command-line options common to
// all of them, starting each server of the comparison in turn (or using the
// one --target names), putting the link emulator in front of it when --link
// asks, making the run's certificates for the servers it speaks TLS to
// (--tls-server, in the scenarios whose clients can), and writing the
// table, --json and --svg at the end.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "publisher.hpp"
#include "report.hpp"
#include "subscriber.hpp"
#include "io/socket.hpp"
#include "svg.hpp"
#include "tls_client.hpp"

namespace sluice::bench {

// One server of the comparison: NAME=COMMAND, spoken to in clear or over TLS.
struct ServerSpec {
  std::string spec;
  bool tls = false;
};

struct CommonOptions {
  std::string target = "127.0.0.1:8080";  // used when no --server is given
  std::vector<ServerSpec> servers;        // run one after another, in the order given
  bool tls_insecure = false;              // --tls-server: do not check the server's certificate
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
  std::string link;       // the link description, empty when direct
  std::shared_ptr<const TlsClient> tls;  // set when the clients speak TLS to it (--tls-server)
};

using ScenarioFn = std::function<nlohmann::json(const ServerUnderTest&)>;
// Turns all results into the chart; null when the scenario draws none.
using ChartFn = std::function<std::string(const nlohmann::json& results)>;

// Adds --target, --server, --link, --limit, --json, --svg, --quiet; and
// --tls-server and --tls-insecure when the scenario's clients speak TLS
// (`tls`): a --tls-server's command has "{cert}" and "{key}" replaced by a
// certificate the run makes for 127.0.0.1 and localhost, signed by a CA the
// run makes too, which the clients verify the server against.
void add_common_options(CLI::App& command, CommonOptions& options, bool tls = false);

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
