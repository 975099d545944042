#include "raw_peers.hpp"

#include <algorithm>

namespace sluice::test {

RawPeer::RawPeer(tcp_pcb* pcb) : pcb_(pcb) {
  tcp_arg(pcb_, this);
  tcp_recv(pcb_, &on_recv);
  tcp_sent(pcb_, &on_sent);
  tcp_err(pcb_, &on_error);
  tcp_nagle_disable(pcb_);
  connected_ = pcb_->state == ESTABLISHED;
}

std::unique_ptr<RawPeer> RawPeer::connect(LwipNet& net, std::uint16_t port) {
  tcp_pcb* pcb = net.new_client_pcb();
  if (pcb == nullptr) return nullptr;
  auto peer = std::make_unique<RawPeer>(pcb);
  if (tcp_connect(pcb, &net.server_address(), port, &on_connected) != ERR_OK) peer->failed_ = true;
  return peer;
}

RawPeer::~RawPeer() {
  if (pcb_ == nullptr) return;
  tcp_arg(pcb_, nullptr);
  tcp_abort(pcb_);
}

void RawPeer::send(std::string_view bytes) {
  outgoing_.append(bytes);
  pump();
}

void RawPeer::set_reading(bool reading) {
  reading_ = reading;
  if (reading_ && pcb_ != nullptr && unacknowledged_ > 0) {
    // tcp_recved takes at most 64 KiB at a time.
    while (unacknowledged_ > 0) {
      const auto n = static_cast<u16_t>(std::min<std::size_t>(unacknowledged_, 0xFFFF));
      tcp_recved(pcb_, n);
      unacknowledged_ -= n;
    }
  }
}

void RawPeer::close() {
  if (pcb_ == nullptr) return;
  tcp_arg(pcb_, nullptr);
  tcp_recv(pcb_, nullptr);
  tcp_sent(pcb_, nullptr);
  tcp_err(pcb_, nullptr);
  if (tcp_close(pcb_) != ERR_OK) tcp_abort(pcb_);
  pcb_ = nullptr;
}

void RawPeer::send_and_shut(std::string_view bytes) {
  shut_after_ = true;
  send(bytes);
}

void RawPeer::pump() {
  if (pcb_ == nullptr || !connected_) return;
  while (written_ < outgoing_.size()) {
    const std::size_t n = std::min<std::size_t>({outgoing_.size() - written_, tcp_sndbuf(pcb_), 0xFFFF});
    if (n == 0 || tcp_write(pcb_, outgoing_.data() + written_, static_cast<u16_t>(n), TCP_WRITE_FLAG_COPY) != ERR_OK) {
      break;
    }
    written_ += n;
  }
  // tcp_shutdown puts the FIN on the last segment not yet sent, then sends.
  if (shut_after_ && written_ == outgoing_.size()) {
    shut_after_ = false;
    if (tcp_shutdown(pcb_, 0, 1) == ERR_OK) return;
  }
  tcp_output(pcb_);
}

err_t RawPeer::on_connected(void* arg, tcp_pcb*, err_t) {
  auto* self = static_cast<RawPeer*>(arg);
  self->connected_ = true;
  self->pump();
  return ERR_OK;
}

err_t RawPeer::on_recv(void* arg, tcp_pcb* pcb, pbuf* p, err_t) {
  auto* self = static_cast<RawPeer*>(arg);
  if (p == nullptr) {
    self->peer_closed_ = true;
    return ERR_OK;
  }
  const std::size_t at = self->received_.size();
  self->received_.resize(at + p->tot_len);
  pbuf_copy_partial(p, self->received_.data() + at, p->tot_len, 0);
  if (self->reading_) {
    tcp_recved(pcb, p->tot_len);
  } else {
    self->unacknowledged_ += p->tot_len;
  }
  pbuf_free(p);
  return ERR_OK;
}

err_t RawPeer::on_sent(void* arg, tcp_pcb*, u16_t) {
  static_cast<RawPeer*>(arg)->pump();
  return ERR_OK;
}

void RawPeer::on_error(void* arg, err_t) {
  if (arg == nullptr) return;
  auto* self = static_cast<RawPeer*>(arg);
  self->pcb_ = nullptr;  // lwIP has freed it
  self->failed_ = true;
}

RawListener::RawListener(LwipNet& net, Accept accept, std::uint16_t port) : accept_(std::move(accept)) {
  tcp_pcb* pcb = net.new_server_pcb(port);
  if (pcb == nullptr) return;
  pcb_ = tcp_listen(pcb);
  if (pcb_ == nullptr) return;
  tcp_arg(pcb_, this);
  tcp_accept(pcb_, &on_accept);
}

RawListener::~RawListener() {
  if (pcb_ != nullptr) tcp_close(pcb_);
}

err_t RawListener::on_accept(void* arg, tcp_pcb* pcb, err_t err) {
  if (err != ERR_OK || pcb == nullptr) return ERR_VAL;
  return static_cast<RawListener*>(arg)->accept_(pcb);
}

}  // namespace sluice::test
