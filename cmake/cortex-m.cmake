# The Cortex-M profile (preset cortex-m): the portable core of sluice built
# for a microcontroller, a size report, and the core's unit tests run on
# QEMU. Only what needs no operating system is here: buf/, proto/ (without
# permessage-deflate: no zlib, and no room for its window), the out queue
# and the slow-consumer policies. Where the host build uses the system (the
# pool's mmap, OpenSSL's random generator, zlib), port/baremetal/ puts the
# device's answer in its place; nothing else differs.

set(portable_sources
  ${PROJECT_SOURCE_DIR}/src/conn/out_queue.cpp
  ${PROJECT_SOURCE_DIR}/src/conn/frame_ring.cpp)
foreach(layer buf proto delivery embedded port/baremetal)
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${layer}/*.cpp)
  list(APPEND portable_sources ${srcs})
endforeach()
# The host's side of each seam.
list(FILTER portable_sources EXCLUDE REGEX "/(pool_mmap|ws_deflate|random_bytes_openssl)\\.cpp$")

add_library(sluice_portable STATIC ${portable_sources})
target_include_directories(sluice_portable PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)

# lwIP for the target. Debian's lwIP source package, unpacked by
# scripts/lwip-source.sh (make test-cortex-m runs it), is compiled here for
# the Cortex-M4 with a small device's options (cmake/cortex-m/lwip/): the
# raw API, NO_SYS=1, IPv4. Without it only lwIP's headers are at hand
# (Debian's liblwip-dev), and the backend is compiled for the size report
# but not linked.
set(SLUICE_LWIP_SOURCE_DIR ${PROJECT_SOURCE_DIR}/build/lwip-source CACHE PATH
    "Debian's lwIP source package, unpacked (scripts/lwip-source.sh)")
set(SLUICE_LWIP_INCLUDE_DIR /usr/include/lwip CACHE PATH "lwIP's headers (the directory holding lwip/tcp.h)")
add_library(lwip_options_m INTERFACE)
target_include_directories(lwip_options_m INTERFACE ${PROJECT_SOURCE_DIR}/cmake/cortex-m/lwip)
if(EXISTS ${SLUICE_LWIP_SOURCE_DIR}/src/core/tcp.c)
  enable_language(C)
  file(GLOB lwip_core_sources ${SLUICE_LWIP_SOURCE_DIR}/src/core/*.c ${SLUICE_LWIP_SOURCE_DIR}/src/core/ipv4/*.c
       ${SLUICE_LWIP_SOURCE_DIR}/src/netif/ethernet.c)
  add_library(lwip_m STATIC ${lwip_core_sources})
  target_include_directories(lwip_m SYSTEM PUBLIC ${SLUICE_LWIP_SOURCE_DIR}/src/include)
  target_link_libraries(lwip_m PUBLIC lwip_options_m)
  target_compile_options(lwip_m PRIVATE -w)
  set(SLUICE_LWIP_LINKED ON)
else()
  message(STATUS "lwIP sources not in ${SLUICE_LWIP_SOURCE_DIR} (scripts/lwip-source.sh): "
                 "the lwIP backend is compiled for the size report, not linked or tested on the target")
  add_library(lwip_m INTERFACE)
  target_include_directories(lwip_m SYSTEM INTERFACE ${SLUICE_LWIP_INCLUDE_DIR})
  target_link_libraries(lwip_m INTERFACE lwip_options_m)
  set(SLUICE_LWIP_LINKED OFF)
endif()

# The lwIP backend (embedded/lwip/) for the target: its flash and
# per-connection RAM in the size report and, when lwIP is linked, the
# firmware of the lwIP tests.
file(GLOB lwip_backend_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/embedded/lwip/*.cpp)
add_library(sluice_lwip_m OBJECT ${lwip_backend_sources} ${PROJECT_SOURCE_DIR}/cmake/cortex-m/lwip_type_sizes.cpp)
target_link_libraries(sluice_lwip_m PUBLIC sluice_portable lwip_m)

# Flash and RAM of each file of the core, by layer (cmake/cortex-m/size_report.cmake).
add_library(sluice_type_sizes OBJECT ${PROJECT_SOURCE_DIR}/cmake/cortex-m/type_sizes.cpp)
target_link_libraries(sluice_type_sizes PRIVATE sluice_portable)
add_custom_target(size-report
  COMMAND ${CMAKE_COMMAND} -DSIZE=${CMAKE_SIZE} -DNM=${CMAKE_NM} -DROOT=${PROJECT_SOURCE_DIR}
          "-DOBJECTS=$<JOIN:$<TARGET_OBJECTS:sluice_portable>,|>|$<JOIN:$<TARGET_OBJECTS:sluice_lwip_m>,|>"
          "-DTYPES=$<TARGET_OBJECTS:sluice_type_sizes>|$<JOIN:$<FILTER:$<TARGET_OBJECTS:sluice_lwip_m>,INCLUDE,lwip_type_sizes>,|>"
          -P ${PROJECT_SOURCE_DIR}/cmake/cortex-m/size_report.cmake
  DEPENDS sluice_portable sluice_type_sizes sluice_lwip_m
  VERBATIM)

enable_testing()
add_subdirectory(tests/cortex_m)
