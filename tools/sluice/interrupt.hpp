// Owns: Ctrl-C and SIGTERM for the sluice tool: a flag the commands poll,
// and a way to keep the signals off the client library's threads so that
// they always interrupt the main thread's blocking calls.
#pragma once

#include <atomic>

namespace sluice::cli {

// Installs the handlers (without SA_RESTART, so a blocked read() returns).
void install_interrupt_handlers();
[[nodiscard]] bool interrupted();
// The flag the handlers set, for a client whose blocking calls give up
// when a signal interrupts them with it set (PublisherOptions::interrupt).
[[nodiscard]] const std::atomic<bool>* interrupt_flag();

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
