// Owns: run_sluiced(), the sluiced program: the command line and config,
// refusing a bad setting with one line that names it, and serving until
// SIGINT or SIGTERM.
#pragma once

#include <functional>

#include "sluice/server.hpp"

namespace sluice::server {

// Returns the process's exit code: 0 after a clean stop, 2 for a bad
// command line or setting. `prepare`, when set, is given the server before
// it binds (a test build adds endpoints there).
int run_sluiced(int argc, char** argv, const std::function<void(Server&)>& prepare = {});

}  // namespace sluice::server
