// Owns: LwipNet, a real lwIP (Debian's liblwip, 2.1) whose TCP talks to
// itself inside the test process, and the count of the TCP segments it sends.
//
// Two interfaces, the client's 10.0.0.1 and the server's 10.0.0.2, each
// with an output function that queues the IP packet here; the harness then
// hands it to the other interface's input, as a wire would. Nothing waits
// on wall-clock time: step() delivers what is in flight, and when nothing is,
// moves lwIP's clock (sys_now(), defined here) to its next timer and fires it.
// So a run is deterministic and never sleeps, and a delayed ACK costs no
// real time.
//
// Debian's lwIP is built for its socket API (NO_SYS=0), but only the raw
// API is used here, from one thread, and tcpip_init() is never called: no
// lwIP thread exists, so lwIP runs as it would with NO_SYS=1, its core
// owned by the caller.
#pragma once

#include <lwip/ip_addr.h>
#include <lwip/netif.h>
#include <lwip/tcp.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace sluice::test {

// TCP segments one side sent, as they left its interface.
struct SegmentCount {
  std::uint64_t data_segments = 0;  // segments carrying payload
  std::uint64_t data_bytes = 0;     // their payload
  std::uint64_t bare_acks = 0;      // segments with neither payload nor SYN/FIN/RST
};

class LwipNet {
 public:
  static constexpr std::uint16_t kPort = 8080;

  // Initialises lwIP on first use in the process and adds both interfaces.
  LwipNet();
  // Removes them (aborting the connections still bound to their addresses).
  ~LwipNet();
  LwipNet(const LwipNet&) = delete;
  LwipNet& operator=(const LwipNet&) = delete;

  [[nodiscard]] const ip_addr_t& client_address() const { return client_address_; }
  [[nodiscard]] const ip_addr_t& server_address() const { return server_address_; }

  // A new pcb bound to the client's interface and address (any port).
  [[nodiscard]] tcp_pcb* new_client_pcb();
  // A new pcb bound to the server's interface, address and `port`, to listen on.
  [[nodiscard]] tcp_pcb* new_server_pcb(std::uint16_t port);

  // Delivers every packet queued now (those sent in reply wait for the
  // next step). With none queued, advances the clock to lwIP's next timer
  // and runs it. Returns false when there is nothing at all to do.
  bool step();

  // Calls `work` then step() until `work` returns true; false if it has
  // not after `max_steps` steps or when nothing is left to do.
  bool run_until(const std::function<bool()>& work, int max_steps = 200000);

  // Steps until lwIP's clock has moved `ms` on (delivering everything sent
  // meanwhile): lets delayed ACKs, retransmissions and window probes happen.
  void run_for(std::uint32_t ms);

  // Milliseconds on lwIP's clock since the process started.
  [[nodiscard]] static std::uint32_t now_ms();

  [[nodiscard]] const SegmentCount& sent_by_server() const { return sent_by_server_; }
  [[nodiscard]] const SegmentCount& sent_by_client() const { return sent_by_client_; }
  // Packets that reached no interface (none should).
  [[nodiscard]] std::uint64_t undeliverable() const { return undeliverable_; }

 private:
  struct Packet {
    netif* to;
    std::vector<std::uint8_t> bytes;
  };

  static err_t init_netif(netif* nif);
  static err_t output(netif* nif, pbuf* p, const ip4_addr_t* dst);
  void queue(netif& from, pbuf* p, const ip4_addr_t& dst);
  void deliver(Packet& packet);
  static void count(SegmentCount& counts, const std::vector<std::uint8_t>& packet);

  ip_addr_t client_address_;
  ip_addr_t server_address_;
  netif client_{};
  netif server_{};
  std::deque<Packet> in_flight_;
  SegmentCount sent_by_server_;
  SegmentCount sent_by_client_;
  std::uint64_t undeliverable_ = 0;
};

}  // namespace sluice::test
