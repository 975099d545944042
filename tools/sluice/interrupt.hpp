// Owns: Ctrl-C and SIGTERM for the sluice tool: a flag the commands poll,
// and a way to keep the signals off the client library's threads so that
// they always interrupt the main thread's blocking calls.
#pragma once

namespace sluice::cli {

// Installs the handlers (without SA_RESTART, so a blocked read() returns).
void install_interrupt_handlers();
[[nodiscard]] bool interrupted();

// While alive, SIGINT and SIGTERM are blocked on this thread, and on every
// thread it starts; the destructor unblocks them here again.
class SignalsBlocked {
 public:
  SignalsBlocked();
  ~SignalsBlocked();
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;
};

}  // namespace sluice::cli
