/* lwIP options of a small device, for building sluice's lwIP backend for
 * Cortex-M against lwIP's own headers (the size report): the raw API with
 * no operating system (NO_SYS=1, one loop), TCP over IPv4, a send buffer
 * and window of four segments, as on an ESP32 or STM32 port. An
 * application's own lwipopts.h takes its place on a real board. */
#ifndef SLUICE_CORTEX_M_LWIPOPTS_H
#define SLUICE_CORTEX_M_LWIPOPTS_H

#define NO_SYS 1
#define LWIP_SOCKET 0
#define LWIP_NETCONN 0
#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_TCP 1
#define LWIP_UDP 1
#define MEM_ALIGNMENT 4
#define TCP_MSS 1460
#define TCP_WND (4 * TCP_MSS)
#define TCP_SND_BUF (4 * TCP_MSS)

#endif
