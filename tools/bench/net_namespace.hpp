// Owns: NetNamespace, a network namespace of the bench's own, and
// InNamespace, which moves the calling thread into one for a scope.
//
// The namespace has no name (no file under /var/run/netns): it lives while
// something holds it (this object's file descriptor, a tun device's file,
// a process started in it) and the kernel removes it, with its devices,
// when the last of those goes, however the bench ends, SIGKILL included.
//
// A socket belongs to the namespace its thread was in when it was made,
// and a thread or process belongs to the one its creator was in: so a
// reader dialled, a publisher's threads started or a server spawned inside
// an InNamespace scope stay in that namespace after the scope ends.
#pragma once

#include <string>

namespace sluice::bench {

class NetNamespace {
 public:
  NetNamespace() = default;
  ~NetNamespace();
  NetNamespace(NetNamespace&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  NetNamespace& operator=(NetNamespace&& other) noexcept;
  NetNamespace(const NetNamespace&) = delete;
  NetNamespace& operator=(const NetNamespace&) = delete;

  // A new, empty namespace (its loopback down), made on a short-lived
  // thread so that no thread of the caller's changes namespace. Needs
  // CAP_SYS_ADMIN; on failure `error` says why and the result is empty.
  [[nodiscard]] static NetNamespace make(std::string& error);

  [[nodiscard]] bool valid() const { return fd_ >= 0; }
  [[nodiscard]] int fd() const { return fd_; }

 private:
  explicit NetNamespace(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Moves the calling thread into `ns` (nothing when `ns` is null or empty)
// and back into the namespace it was in when the scope ends.
class InNamespace {
 public:
  explicit InNamespace(const NetNamespace* ns);
  ~InNamespace() { leave(); }
  InNamespace(const InNamespace&) = delete;
  InNamespace& operator=(const InNamespace&) = delete;

  // False when the thread could not enter the namespace (it stays where
  // it was), or was not asked to.
  [[nodiscard]] bool entered() const { return entered_; }
  // Goes back before the scope ends.
  void leave();

 private:
  int previous_ = -1;
  bool entered_ = false;
};

}  // namespace sluice::bench
