#include "broker/hiredis_loop.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace sluice::broker {

namespace {

HiredisLoop& self_of(void* p) { return *static_cast<HiredisLoop*>(p); }

// Whether a read would find something: bytes, the peer's EOF, or an error
// for hiredis to report. Only "would block" means the socket is drained.
bool more_to_read(int fd) {
  char byte;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

}  // namespace

HiredisLoop::~HiredisLoop() {
  loop_.forget(this);
  if (fd_ >= 0) loop_.unwatch(fd_);
}

int HiredisLoop::attach(redisAsyncContext* context, ReplyBudget& budget) {
  // Until the connection is established only writability (the connect done
  // or failed) matters; reading starts when hiredis asks for it.
  const int rc = loop_.watch(context->c.fd, io::kWritable, this);
  if (rc != 0) return rc;
  context_ = context;
  budget_ = &budget;
  bound_replies(context->c.reader, budget);
  fd_ = context->c.fd;
  interest_ = io::kWritable;
  context->ev.data = this;
  context->ev.addRead = add_read;
  context->ev.delRead = del_read;
  context->ev.addWrite = add_write;
  context->ev.delWrite = del_write;
  context->ev.cleanup = cleanup;
  return 0;
}

bool HiredisLoop::connected() const { return context_ != nullptr && (context_->c.flags & REDIS_CONNECTED) != 0; }

// hiredis asks for reading after every read and write: the watch changes
// only when the interest does, not once per call.
void HiredisLoop::set_interest(std::uint32_t interest) {
  if (fd_ < 0 || interest == interest_) return;
  interest_ = interest;
  loop_.rewatch(fd_, interest, this);
}

void HiredisLoop::add_read(void* self) {
  HiredisLoop& h = self_of(self);
  h.set_interest(h.interest_ | io::kReadable);
}

// Reading stays on until the context goes: with edge-triggered readiness a
// watch taken off and put back could miss the edge in between, and hiredis
// only asks for it off while tearing down.
void HiredisLoop::del_read(void*) {}

void HiredisLoop::add_write(void* self) { self_of(self).want_write(); }

void HiredisLoop::del_write(void* self) {
  HiredisLoop& h = self_of(self);
  h.set_interest(h.interest_ & ~std::uint32_t{io::kWritable});
}

void HiredisLoop::cleanup(void* self) {
  HiredisLoop& h = self_of(self);
  h.loop_.forget(&h);
  if (h.fd_ >= 0) h.loop_.unwatch(h.fd_);
  h.fd_ = -1;
  h.context_ = nullptr;
  h.interest_ = 0;
  h.owner_.context_released();
}

// While connecting, writability is how the end of the connect is told; once
// connected, a command waits for the end of the tick, and only a write that
// did not finish (hiredis asks again from inside it) arms the watcher.
void HiredisLoop::want_write() {
  if (!connected() || writing_) {
    set_interest(interest_ | io::kWritable);
  } else if ((interest_ & io::kWritable) == 0) {
    loop_.defer(this);
  }
}

void HiredisLoop::run_deferred() {
  if (connected()) write_now();
}

void HiredisLoop::write_now() {
  writing_ = true;
  redisAsyncHandleWrite(context_);  // may release the context
  writing_ = false;
}

void HiredisLoop::on_ready(std::uint32_t events) {
  if (context_ == nullptr) return;
  if (!connected()) {
    // The connect finished, one way or the other; hiredis checks SO_ERROR.
    write_now();
    if (!connected()) return;
  } else if ((events & io::kWritable) && (interest_ & io::kWritable)) {
    write_now();
  }
  if (context_ != nullptr && (events & (io::kReadable | io::kHangup | io::kError))) read_all();
}

void HiredisLoop::read_all() {
  while (context_ != nullptr) {
    const int fd = fd_;
    redisAsyncHandleRead(context_);  // may release the context
    if (context_ == nullptr) return;
    if (input_over_budget(context_->c.reader, *budget_)) {
      owner_.input_over_budget();
      return;
    }
    if (!more_to_read(fd)) return;
  }
}

}  // namespace sluice::broker
