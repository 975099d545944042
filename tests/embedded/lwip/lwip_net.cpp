// LwipNet: the wire between two lwIP interfaces, and lwIP's clock.
//
// Routing: lwIP sends a packet addressed to one of its own interfaces down
// its loopback path, which with NO_SYS=0 hands it to the tcpip thread we do
// not run, and its routing picks the destination's own interface whenever
// that one is a candidate. So neither interface is: both are up but report
// no link, which keeps them out of routing while they still take input, and
// every pcb is bound to its side's interface (tcp_bind_netif; an accepted
// pcb inherits its listener's). A packet with no pcb to route it (the RST
// answering a segment for a connection already gone) finds no route and is
// dropped by lwIP, as a host with no route to the peer would drop it.
#include "lwip_net.hpp"

#include <lwip/init.h>
#include <lwip/ip.h>
#include <lwip/pbuf.h>
#include <lwip/timeouts.h>

#include <cstdio>
#include <cstdlib>

namespace {

std::uint32_t g_now_ms = 0;

}  // namespace

// lwIP's clock, in place of the port's wall clock (this definition in the
// test program takes precedence over the library's for every caller).
extern "C" u32_t sys_now(void) { return g_now_ms; }

namespace sluice::test {

namespace {

constexpr std::uint8_t kProtocolTcp = 6;

#if LWIP_IPV6  // Debian's host lwIP has IPv6; the device build has not
err_t drop_ip6(netif*, pbuf*, const ip6_addr_t*) { return ERR_OK; }
#endif

}  // namespace

LwipNet::LwipNet() {
  static const bool initialised = [] {
    lwip_init();
    return true;
  }();
  (void)initialised;
  IP_ADDR4(&client_address_, 10, 0, 0, 1);
  IP_ADDR4(&server_address_, 10, 0, 0, 2);
  ip4_addr_t mask;
  IP4_ADDR(&mask, 255, 255, 255, 0);
  netif_add(&client_, ip_2_ip4(&client_address_), &mask, IP4_ADDR_ANY4, this, &init_netif, &ip_input);
  netif_add(&server_, ip_2_ip4(&server_address_), &mask, IP4_ADDR_ANY4, this, &init_netif, &ip_input);
  netif_set_up(&client_);
  netif_set_up(&server_);
  // lwIP's timers run on sys_now(): if the library still read the wall
  // clock, every wait below would spin instead of stepping the clock.
  const u32_t before = sys_timeouts_sleeptime();
  g_now_ms += 1;
  if (before != SYS_TIMEOUTS_SLEEPTIME_INFINITE && before > 1 && sys_timeouts_sleeptime() != before - 1) {
    std::fprintf(stderr, "lwip_net: lwIP does not read the test's sys_now()\n");
    std::abort();
  }
}

LwipNet::~LwipNet() {
  netif_remove(&server_);
  netif_remove(&client_);
}

err_t LwipNet::init_netif(netif* nif) {
  nif->name[0] = 't';
  nif->name[1] = 'p';
  nif->mtu = 1500;
  nif->output = &LwipNet::output;
#if LWIP_IPV6
  nif->output_ip6 = &drop_ip6;
#endif
  nif->flags = 0;  // no NETIF_FLAG_LINK_UP: see the routing note above
  return ERR_OK;
}

tcp_pcb* LwipNet::new_client_pcb() {
  tcp_pcb* pcb = tcp_new();
  if (pcb == nullptr) return nullptr;
  tcp_bind_netif(pcb, &client_);
  if (tcp_bind(pcb, &client_address_, 0) != ERR_OK) {
    tcp_abort(pcb);
    return nullptr;
  }
  return pcb;
}

tcp_pcb* LwipNet::new_server_pcb(std::uint16_t port) {
  tcp_pcb* pcb = tcp_new();
  if (pcb == nullptr) return nullptr;
  tcp_bind_netif(pcb, &server_);
  if (tcp_bind(pcb, &server_address_, port) != ERR_OK) {
    tcp_abort(pcb);
    return nullptr;
  }
  return pcb;
}

err_t LwipNet::output(netif* nif, pbuf* p, const ip4_addr_t* dst) {
  static_cast<LwipNet*>(nif->state)->queue(*nif, p, *dst);
  return ERR_OK;
}

void LwipNet::queue(netif& from, pbuf* p, const ip4_addr_t& dst) {
  Packet packet{nullptr, std::vector<std::uint8_t>(p->tot_len)};
  pbuf_copy_partial(p, packet.bytes.data(), p->tot_len, 0);
  if (ip4_addr_cmp(&dst, ip_2_ip4(&server_address_))) packet.to = &server_;
  if (ip4_addr_cmp(&dst, ip_2_ip4(&client_address_))) packet.to = &client_;
  count(&from == &server_ ? sent_by_server_ : sent_by_client_, packet.bytes);
  in_flight_.push_back(std::move(packet));
}

// Reads the IPv4 and TCP headers of one packet.
void LwipNet::count(SegmentCount& counts, const std::vector<std::uint8_t>& packet) {
  if (packet.size() < 20 || packet[9] != kProtocolTcp) return;
  const std::size_t ip_header = (packet[0] & 0x0Fu) * 4u;
  const std::size_t total = (std::size_t{packet[2]} << 8) | packet[3];
  if (packet.size() < ip_header + 20 || total > packet.size()) return;
  const std::size_t tcp_header = (packet[ip_header + 12] >> 4) * 4u;
  const std::uint8_t flags = packet[ip_header + 13];
  const std::size_t payload = total - ip_header - tcp_header;
  constexpr std::uint8_t kSynFinRst = 0x07;
  if (payload > 0) {
    ++counts.data_segments;
    counts.data_bytes += payload;
  } else if ((flags & kSynFinRst) == 0) {
    ++counts.bare_acks;
  }
}

void LwipNet::deliver(Packet& packet) {
  if (packet.to == nullptr) {
    ++undeliverable_;
    return;
  }
  const auto length = static_cast<u16_t>(packet.bytes.size());
  pbuf* p = pbuf_alloc(PBUF_RAW, length, PBUF_RAM);
  if (p == nullptr) {
    ++undeliverable_;
    return;
  }
  pbuf_take(p, packet.bytes.data(), length);
  packet.to->input(p, packet.to);
}

bool LwipNet::step() {
  if (!in_flight_.empty()) {
    std::deque<Packet> now;
    now.swap(in_flight_);
    for (Packet& packet : now) deliver(packet);
    return true;
  }
  const u32_t sleep = sys_timeouts_sleeptime();
  if (sleep == SYS_TIMEOUTS_SLEEPTIME_INFINITE) return false;
  g_now_ms += sleep;
  sys_check_timeouts();
  return true;
}

bool LwipNet::run_until(const std::function<bool()>& work, int max_steps) {
  for (int i = 0; i < max_steps; ++i) {
    if (work()) return true;
    if (!step()) return work();
  }
  return false;
}

void LwipNet::run_for(std::uint32_t ms) {
  const std::uint32_t until = g_now_ms + ms;
  // lwIP's cyclic timers never stop, so each step either delivers or moves
  // the clock, and the loop ends.
  while (static_cast<std::int32_t>(g_now_ms - until) < 0 || !in_flight_.empty()) {
    if (!step()) return;
  }
}

std::uint32_t LwipNet::now_ms() { return g_now_ms; }

}  // namespace sluice::test
