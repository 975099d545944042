// The size report's probe for the lwIP side, built for the target against
// lwIP's headers and a small device's lwipopts.h: one symbol per type, as
// large as the type is there (see type_sizes.cpp). A PushSlot is all the
// RAM one connection of the embedded push server holds (its TcpConnection,
// queue ring, input buffer and the server's PushConnection); the pool, the
// writer's shared scratch buffer and lwIP's own pcb are counted apart.
#include "embedded/lwip/push_listener.hpp"

#define SLUICE_SIZE_OF(name, ...) \
  extern "C" {                    \
  char sluice_sizeof_##name[sizeof(__VA_ARGS__)]; \
  }

SLUICE_SIZE_OF(embedded_PushConnection, sluice::embedded::PushConnection)
SLUICE_SIZE_OF(embedded_PushServer, sluice::embedded::PushServer)
SLUICE_SIZE_OF(embedded_HistoryRecord, sluice::embedded::HistoryRecord)
SLUICE_SIZE_OF(io_lwip_TcpConnection, sluice::embedded::lwip::TcpConnection)
SLUICE_SIZE_OF(io_lwip_PushSlot_per_connection, sluice::embedded::lwip::PushSlot)
SLUICE_SIZE_OF(lwip_tcp_pcb, struct tcp_pcb)

// A connection on a small device fits in 2 KiB, pool excluded.
static_assert(sizeof(sluice::embedded::lwip::PushSlot) <= 2048, "a PushSlot must stay within 2 KiB on Cortex-M");
