// Owns: the system calls newlib's stdio, malloc and exit end in, for the
// test firmware: stdout and stderr go to the host through semihosting, the
// heap is the PSRAM region the linker script leaves for it (and no more),
// _exit ends QEMU with the status, the time of day is the host's clock since
// start. Everything else a bare board cannot do (files, processes) fails with
// ENOSYS, ENOENT or EBADF.
#include <sys/stat.h>
#include <sys/time.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "semihosting.hpp"

extern "C" {

// Placed by mps2_an386.ld.
extern char __heap_start;
extern char __heap_end;

// Static destructors registered with __aeabi_atexit name this object; the
// firmware is one module, so any address will do.
void* __dso_handle = nullptr;

int _write(int fd, const char* bytes, int n) {
  const int handle = sluice::board::semihosting::console(fd);
  if (handle < 0) {
    errno = EBADF;
    return -1;
  }
  return static_cast<int>(sluice::board::semihosting::write(handle, bytes, static_cast<std::size_t>(n)));
}

void* _sbrk(std::ptrdiff_t increment) {
  static char* brk = &__heap_start;
  if (increment > &__heap_end - brk) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  char* old = brk;
  brk += increment;
  return old;
}

[[noreturn]] void _exit(int status) { sluice::board::semihosting::exit(status); }

int _isatty(int fd) { return fd >= 0 && fd <= 2 ? 1 : 0; }

int _fstat(int fd, struct stat* st) {
  if (fd < 0 || fd > 2) {
    errno = EBADF;
    return -1;
  }
  st->st_mode = S_IFCHR;
  return 0;
}

int _close(int) {
  errno = EBADF;
  return -1;
}

int _read(int, char*, int) {
  errno = ENOSYS;
  return -1;
}

int _lseek(int, int, int) {
  errno = ENOSYS;
  return -1;
}

int _kill(int, int) {
  errno = ENOSYS;
  return -1;
}

int _getpid() { return 1; }

int _gettimeofday(struct timeval* tv, void*) {
  // The host's clock in centiseconds since the firmware started: enough
  // for GoogleTest's elapsed times.
  const long centis = sluice::board::semihosting::clock_centiseconds();
  if (tv != nullptr && centis >= 0) {
    tv->tv_sec = centis / 100;
    tv->tv_usec = (centis % 100) * 10000;
  }
  return 0;
}

int _open(const char*, int, ...) {
  errno = ENOSYS;
  return -1;
}

int _stat(const char*, struct stat*) {
  errno = ENOENT;
  return -1;
}

int _unlink(const char*) {
  errno = ENOSYS;
  return -1;
}

int mkdir(const char*, mode_t) {
  errno = ENOSYS;
  return -1;
}

}  // extern "C"
