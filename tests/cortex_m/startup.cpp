// Owns: the reset path of the MPS2-AN386 test firmware: the vector table,
// the FPU switched on, .data copied from its load image, .bss zeroed,
// static constructors run, then main() with the arguments QEMU was given,
// and exit() with what main returns. A fault of any kind ends the run with
// a message and exit status 3, so a crash on the target is a failed test
// rather than a hang until the time-out.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "semihosting.hpp"

extern "C" {
// Placed by mps2_an386.ld.
extern std::uint32_t __stack_top;
extern std::uint32_t _sidata;
extern std::uint32_t _sdata;
extern std::uint32_t _edata;
extern std::uint32_t _sbss;
extern std::uint32_t _ebss;

void __libc_init_array();
// The program's main(), under a name C++ lets start-up code call.
int program_main(int argc, char** argv) asm("main");

[[noreturn]] void Reset_Handler();
[[noreturn]] void Fault_Handler();
void Default_Handler();

// __libc_init_array calls _init before the constructors; the linker script
// collects them into .init_array, so there is nothing for _init to do.
void _init() {}
void _fini() {}
}

namespace {

using Handler = void (*)();

// The Armv7-M vector table: the initial stack pointer, then the reset and
// exception handlers. QEMU reads the first two words at reset.
struct VectorTable {
  void* stack_top;
  Handler handlers[15];
};

constexpr int kMaxArgs = 16;
char command_line[512];
char* argv[kMaxArgs + 1];

// Splits the semihosting command line at spaces into argv.
int split_arguments() {
  if (sluice::board::semihosting::command_line(command_line, sizeof command_line) < 0) return 0;
  int argc = 0;
  for (char* p = command_line; *p != '\0' && argc < kMaxArgs;) {
    while (*p == ' ') *p++ = '\0';
    if (*p == '\0') break;
    argv[argc++] = p;
    while (*p != '\0' && *p != ' ') ++p;
  }
  argv[argc] = nullptr;
  return argc;
}

}  // namespace

__attribute__((section(".isr_vector"), used)) const VectorTable vector_table = {
    &__stack_top,
    {
        Reset_Handler,
        Fault_Handler,  // NMI
        Fault_Handler,  // HardFault
        Fault_Handler,  // MemManage
        Fault_Handler,  // BusFault
        Fault_Handler,  // UsageFault
        nullptr, nullptr, nullptr, nullptr,
        Default_Handler,  // SVCall
        Default_Handler,  // DebugMonitor
        nullptr,
        Default_Handler,  // PendSV
        Default_Handler,  // SysTick
    },
};

void Reset_Handler() {
  // CPACR: full access to CP10 and CP11, the FPU, before any code that
  // the hard-float ABI lets the compiler give floating-point instructions.
  *reinterpret_cast<volatile std::uint32_t*>(0xE000ED88) |= 0xFu << 20;
  asm volatile("dsb\n\tisb" ::: "memory");
  const auto data_bytes = static_cast<std::size_t>(&_edata - &_sdata) * sizeof(std::uint32_t);
  std::memcpy(&_sdata, &_sidata, data_bytes);
  std::memset(&_sbss, 0, static_cast<std::size_t>(&_ebss - &_sbss) * sizeof(std::uint32_t));
  __libc_init_array();
  const int argc = split_arguments();
  std::exit(program_main(argc, argv));
}

void Fault_Handler() {
  static const char kMessage[] = "cortex-m: fault exception, stopping\n";
  sluice::board::semihosting::write(sluice::board::semihosting::console(2), kMessage, sizeof kMessage - 1);
  sluice::board::semihosting::exit(3);
}

void Default_Handler() {}
