# Cortex-M4 with its single-precision FPU (hard-float ABI), as on QEMU's
# MPS2-AN386 board and most M4 parts (STM32F4, nRF52, Kinetis K). Debian's
# arm-none-eabi GCC with newlib and its libstdc++. Everything builds for a
# small device: size-optimised, no exceptions, no RTTI, one section per
# function and object so the linker drops what an image does not use.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
# The compiler check links no program: a bare board has no default start-up.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(SLUICE_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${SLUICE_CPU_FLAGS} -ffunction-sections -fdata-sections")
# -Wno-psabi: GCC notes that passing some types changed ABI in GCC 7.1;
# everything here is built by one compiler, so the notes are noise.
set(CMAKE_CXX_FLAGS_INIT "${SLUICE_CPU_FLAGS} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -Wno-psabi")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${SLUICE_CPU_FLAGS} -Wl,--gc-sections")

set(CMAKE_SIZE arm-none-eabi-size)
set(CMAKE_NM arm-none-eabi-nm)

# Test programs run on QEMU's MPS2-AN386 (ctest prefixes every test command
# with this; see the script).
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../cortex-m/qemu-run)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
