// Callbacks find their connection through tcp_arg. When the connection
// lets go of its pcb, arg and callbacks are cleared first, so lwIP can
// never call into an object that has finished.
//
// A pcb closed with input lwIP counts as unread (bytes not passed to
// tcp_recved, or a chain it keeps as refused data) is reset and freed by
// tcp_close, which still returns ERR_OK. So a close first reads and drops
// every byte still coming, and touches the pcb no more once tcp_close has
// taken it, unless frames held for their ACK still need its tcp_sent.
#include "embedded/lwip/tcp_connection.hpp"

#include <lwip/priv/tcp_priv.h>  // tcp_process_refused_data, which lwIP's own timer calls

#include <algorithm>

namespace sluice::embedded::lwip {

TcpConnection::TcpConnection(tcp_pcb* pcb, Handler& handler, const TcpConnectionLimits& limits,
                             const TcpConnectionMemory& memory)
    : pcb_(pcb), handler_(handler),
      out_(memory.queue.data.empty() || memory.queue.control.empty() ? conn::OutQueue(limits.queue)
                                                                      : conn::OutQueue(limits.queue, memory.queue)),
      hold_(memory.held, pcb->snd_lbb),
      writer_(pcb, limits.writer, &hold_, memory.scratch), input_(memory.input),
      poll_interval_(limits.poll_interval) {
  attach();
  // Events are batched per flush already; Nagle would only hold the last
  // segment of a batch back for an ACK.
  tcp_nagle_disable(pcb_);
}

TcpConnection::~TcpConnection() {
  if (pcb_ != nullptr) let_go(true);
}

void TcpConnection::flush() {
  if (pcb_ == nullptr || fin_queued_) return;
  if (!out_.empty()) {
    writer_.begin_batch(out_.control_bytes_ahead());
    (void)out_.flush(writer_);  // a short batch is resumed by tcp_sent or the poll
    tcp_output(pcb_);
  }
  if (closing_) try_close();
}

void TcpConnection::consume(std::size_t n) {
  std::size_t acknowledged = input_.consume(n);
  consumed_ += acknowledged;
  if (pcb_ == nullptr) return;
  while (acknowledged > 0) {
    const auto chunk = static_cast<u16_t>(std::min<std::size_t>(acknowledged, 0xFFFF));
    tcp_recved(pcb_, chunk);
    acknowledged -= chunk;
  }
  if (pcb_->refused_data != nullptr && input_.waiting() == 0) {
    // Offer again what lwIP kept while the buffer was full, now rather
    // than at its next timer.
    delivering_ = true;
    (void)tcp_process_refused_data(pcb_);
    delivering_ = false;
  }
}

void TcpConnection::close() {
  closing_ = true;
  flush();
}

void TcpConnection::abort() {
  if (pcb_ == nullptr) return;
  aborted_ = true;
  let_go(true);
  finish(ERR_ABRT);
}

void TcpConnection::try_close() {
  if (pcb_ == nullptr || fin_queued_ || !out_.empty()) return;
  drain_input();
  if (pcb_ == nullptr) return;
  // The peer's FIN came with the segment being delivered: lwIP counts its
  // byte as unread until the FIN's own callback, which follows this one in
  // the same tcp_input, and a close before then would be a reset.
  if (pcb_->state == CLOSE_WAIT && !input_closed_) return;
  if (!hold_.empty()) {
    // Input drained, tcp_close sends a FIN and keeps the pcb, whose
    // tcp_sent releases the frames still held.
    if (tcp_close(pcb_) != ERR_OK) return;  // the poll retries
    fin_queued_ = true;
    tcp_recv(pcb_, nullptr);  // lwIP's own handler takes the peer's FIN
    return;
  }
  detach();
  if (tcp_close(pcb_) != ERR_OK) {
    attach();  // the poll retries
    return;
  }
  fin_queued_ = true;
  pcb_ = nullptr;
  writer_.detach();
  finish(ERR_OK);
}

// Every byte the peer sent is read and dropped, what lwIP kept as refused
// data included: each consume opens the window and offers it again.
void TcpConnection::drain_input() {
  while (pcb_ != nullptr && (!input_.bytes().empty() || input_.waiting() > 0 || pcb_->refused_data != nullptr)) {
    consume(input_.bytes().size());
  }
}

void TcpConnection::attach() {
  tcp_arg(pcb_, this);
  tcp_recv(pcb_, &on_recv);
  tcp_sent(pcb_, &on_sent);
  tcp_err(pcb_, &on_error);
  tcp_poll(pcb_, &on_poll, poll_interval_);
}

void TcpConnection::detach() {
  tcp_arg(pcb_, nullptr);
  tcp_recv(pcb_, nullptr);
  tcp_sent(pcb_, nullptr);
  tcp_err(pcb_, nullptr);
  tcp_poll(pcb_, nullptr, 0);
}

// Clears arg and callbacks, then closes or aborts.
void TcpConnection::let_go(bool abort) {
  detach();
  if (abort) tcp_abort(pcb_);
  pcb_ = nullptr;
  writer_.detach();
}

void TcpConnection::finish(err_t reason) {
  if (pcb_ != nullptr) let_go(false);
  hold_.release_all();
  out_.clear();
  finished_ = true;
  handler_.on_closed(*this, reason);
}

err_t TcpConnection::on_recv(void* arg, tcp_pcb*, pbuf* p, err_t) {
  auto* self = static_cast<TcpConnection*>(arg);
  if (p == nullptr) {
    self->input_closed_ = true;
  } else if (!self->input_.received(p)) {
    return ERR_MEM;  // lwIP keeps the chain and offers it again
  }
  if (!self->delivering_) self->deliver();
  // A close put off until the FIN (try_close); inside a drain, the drain's own close goes on.
  if (p == nullptr && self->closing_ && !self->delivering_) self->try_close();
  return self->aborted_ ? ERR_ABRT : ERR_OK;
}

// Bytes a consume moves in (the rest of a chain longer than the buffer,
// lwIP's refused data) and a FIN that came with them bring no callback of
// their own: the handler hears of them while it reads and something is
// left, or when the FIN came.
void TcpConnection::deliver() {
  for (;;) {
    const std::size_t consumed = consumed_;
    const bool closed = input_closed_;
    handler_.on_input(*this);
    if (finished_) return;
    if ((consumed_ == consumed || input_.bytes().empty()) && input_closed_ == closed) return;
  }
}

err_t TcpConnection::on_sent(void* arg, tcp_pcb*, u16_t len) {
  auto* self = static_cast<TcpConnection*>(arg);
  self->hold_.acked(len);
  if (self->fin_queued_) {
    if (self->hold_.empty()) self->finish(ERR_OK);
  } else {
    self->flush();
  }
  return self->aborted_ ? ERR_ABRT : ERR_OK;
}

err_t TcpConnection::on_poll(void* arg, tcp_pcb*) {
  auto* self = static_cast<TcpConnection*>(arg);
  self->flush();
  if (!self->finished_) self->handler_.on_poll(*self);
  return self->aborted_ ? ERR_ABRT : ERR_OK;
}

void TcpConnection::on_error(void* arg, err_t err) {
  auto* self = static_cast<TcpConnection*>(arg);
  self->pcb_ = nullptr;  // lwIP has freed it
  self->writer_.detach();
  self->finish(err);
}

}  // namespace sluice::embedded::lwip
