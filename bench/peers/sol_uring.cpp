#include "sol_uring.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sluice::peers {

SolUring::SolUring(unsigned entries) {
  // One thread submits and reaps (SINGLE_ISSUER); completions are only
  // wanted when it waits for them (DEFER_TASKRUN); an entry the kernel
  // refuses does not stop the ones after it (SUBMIT_ALL).
  const unsigned flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SUBMIT_ALL;
  const int rc = io_uring_queue_init(entries, &ring_, flags);
  if (rc < 0) error_ = std::string("io_uring_queue_init: ") + std::strerror(-rc);
}

SolUring::~SolUring() {
  if (error_.empty()) io_uring_queue_exit(&ring_);
}

void SolUring::send_all(std::span<SolSend> sends) {
  std::size_t next = 0;
  while (next < sends.size()) {
    unsigned queued = 0;
    for (io_uring_sqe* sqe; next < sends.size() && (sqe = io_uring_get_sqe(&ring_)) != nullptr; ++next, ++queued) {
      const SolSend& s = sends[next];
      io_uring_prep_send(sqe, s.fd, s.data, s.size, s.flags);
      io_uring_sqe_set_data64(sqe, next);
    }
    int rc = io_uring_submit_and_wait(&ring_, queued);
    ++submissions_;
    // Every entry was taken (SUBMIT_ALL); a signal may cut the wait short.
    for (unsigned reaped = 0; reaped < queued;) {
      if (rc < 0 && rc != -EINTR) {
        std::fprintf(stderr, "sol-server: io_uring_submit_and_wait: %s\n", std::strerror(-rc));
        std::abort();
      }
      unsigned head;
      unsigned seen = 0;
      io_uring_cqe* cqe;
      io_uring_for_each_cqe(&ring_, head, cqe) {
        sends[io_uring_cqe_get_data64(cqe)].result = cqe->res;
        ++seen;
      }
      io_uring_cq_advance(&ring_, seen);
      reaped += seen;
      if (reaped < queued) rc = io_uring_wait_cqe_nr(&ring_, &cqe, queued - reaped);
    }
  }
}

}  // namespace sluice::peers
