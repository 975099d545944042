/* lwIP's port header for an arm-none-eabi build with newlib: the C
 * library's integer types and errno, no diagnostics output. */
#ifndef SLUICE_CORTEX_M_ARCH_CC_H
#define SLUICE_CORTEX_M_ARCH_CC_H

#include <stdlib.h>

#define LWIP_ERRNO_STDINCLUDE 1
#define LWIP_TIMEVAL_PRIVATE 0
#include <sys/time.h>

#define LWIP_PLATFORM_DIAG(x) do { } while (0)
#define LWIP_PLATFORM_ASSERT(x) abort()
#define LWIP_RAND() ((u32_t)rand())

typedef unsigned int sys_prot_t;

#endif
