/* lwIP options of a small device, for building lwIP and sluice's lwIP
 * backend for Cortex-M (the size report, and the lwIP tests on QEMU): the
 * raw API with no operating system (NO_SYS=1, one loop, nothing of lwIP
 * touched from an interrupt, so no locking), TCP over IPv4, a send buffer
 * and window of four segments, as on an ESP32 or STM32 port. The pools
 * are sized for eight subscribers; a test firmware, whose clients share
 * the one lwIP with the server, sets larger ones on its command line. An
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
#define SYS_LIGHTWEIGHT_PROT 0
#define LWIP_STATS 0

#ifndef MEM_SIZE
#define MEM_SIZE (16 * 1024) /* lwIP's heap: copied writes, pbufs of received segments */
#endif
#ifndef MEMP_NUM_TCP_PCB
#define MEMP_NUM_TCP_PCB 10
#endif
#ifndef MEMP_NUM_TCP_SEG
#define MEMP_NUM_TCP_SEG 32
#endif
#ifndef MEMP_NUM_PBUF
#define MEMP_NUM_PBUF 16
#endif

#endif
