#include "embedded/lwip/push_listener.hpp"

namespace sluice::embedded::lwip {

void PushSlot::open(tcp_pcb* pcb, PushListener& listener) {
  listener_ = &listener;
  tcp_.reset();  // a finished connection: lwIP holds nothing of it
  TcpConnectionLimits limits = listener.limits_;
  limits.writer.copy = true;
  tcp_.emplace(pcb, *this, limits,
               TcpConnectionMemory{.input = input_, .held = {}, .scratch = listener.scratch_,
                                   .queue = {control_, data_}});
  listener.server_.opened(core_, *this);
}

void PushSlot::on_input(TcpConnection&) { listener_->server_.input(core_); }

void PushSlot::on_poll(TcpConnection&) { listener_->server_.poll(core_); }

void PushSlot::on_closed(TcpConnection&, err_t) {
  if (core_.phase() != embedded::PushConnection::Phase::idle) listener_->server_.closed(core_);
}

PushListener::PushListener(tcp_pcb* pcb, embedded::PushServer& server, std::span<PushSlot> slots,
                           std::span<char> scratch, const TcpConnectionLimits& limits)
    : server_(server), slots_(slots), scratch_(scratch), limits_(limits) {
  pcb_ = tcp_listen(pcb);
  if (pcb_ == nullptr) {
    tcp_abort(pcb);
    return;
  }
  tcp_arg(pcb_, this);
  tcp_accept(pcb_, &on_accept);
}

PushListener::~PushListener() {
  for (PushSlot& slot : slots_) {
    if (slot.core_.phase() != embedded::PushConnection::Phase::idle) server_.closed(slot.core_);
    slot.tcp_.reset();  // resets what is still open
  }
  if (pcb_ != nullptr) tcp_close(pcb_);
}

err_t PushListener::on_accept(void* arg, tcp_pcb* pcb, err_t err) {
  if (err != ERR_OK || pcb == nullptr) return ERR_VAL;
  auto* self = static_cast<PushListener*>(arg);
  for (PushSlot& slot : self->slots_) {
    if (slot.free()) {
      slot.open(pcb, *self);
      return ERR_OK;
    }
  }
  ++self->refused_;
  tcp_abort(pcb);
  return ERR_ABRT;  // lwIP's rule for a pcb aborted inside its accept callback
}

}  // namespace sluice::embedded::lwip
