// link: the link emulator on its own, in front of any TCP server, for use
// with curl, a browser or another tool: sluice-bench link --to HOST:PORT
// --link rate=3mbit,delay=20ms,window=5760. Runs until --duration passes.
#include <cstdio>
#include <memory>

#include "clock.hpp"
#include "link_proxy.hpp"
#include "runner.hpp"
#include "scenarios.hpp"

namespace sluice::bench {

void add_link(CLI::App& app, int& exit_code) {
  auto to = std::make_shared<std::string>();
  auto spec = std::make_shared<std::string>("rate=3mbit,delay=20ms,window=5760");
  auto duration = std::make_shared<double>(600);
  CLI::App* cmd = app.add_subcommand("link", "run the link emulator alone: prints 'listening on 127.0.0.1:PORT'");
  cmd->add_option("--to", *to, "HOST:PORT of the server behind the link")->required();
  cmd->add_option("--link", *spec, "rate=R,delay=D,window=W")->capture_default_str();
  cmd->add_option("-d,--duration", *duration, "seconds to run")->capture_default_str();
  cmd->callback([to, spec, duration, &exit_code] {
    io::Endpoint server;
    LinkOptions link;
    std::string error = parse_link(*spec, link);
    // The packet link needs both ends in namespaces the bench made.
    if (error.empty() && link.mode == LinkMode::packet) error = "mode=packet is for scenarios; alone, the link is the TCP proxy";
    if (!io::parse_endpoint(*to, server) || !error.empty()) {
      std::fprintf(stderr, "link: %s\n", error.empty() ? "bad --to" : error.c_str());
      exit_code = 2;
      return;
    }
    LinkProxy proxy(server, link);
    if (proxy.start() != 0) {
      exit_code = 1;
      return;
    }
    std::printf("link (%s) listening on 127.0.0.1:%u\n", describe_link(link).c_str(), proxy.endpoint().port);
    std::fflush(stdout);
    CommonOptions quiet{.quiet = true};
    wait_with_progress(quiet, now_ns() + static_cast<std::uint64_t>(*duration * 1e9), [] { return std::string(); });
  });
}

}  // namespace sluice::bench
