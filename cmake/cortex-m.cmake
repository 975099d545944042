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

# The lwIP backend (embedded/lwip/) compiled for the target against lwIP's own
# headers (Debian's lwIP 2.1 sources of them) and a small device's options
# (cmake/cortex-m/lwip/): for its flash and its per-connection RAM. There
# is no lwIP library for the target here, so it is compiled, not linked;
# a board's build links it with its own lwIP.
set(SLUICE_LWIP_INCLUDE_DIR /usr/include/lwip CACHE PATH "lwIP's headers (the directory holding lwip/tcp.h)")
file(GLOB lwip_backend_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/embedded/lwip/*.cpp)
add_library(sluice_lwip_m OBJECT ${lwip_backend_sources} ${PROJECT_SOURCE_DIR}/cmake/cortex-m/lwip_type_sizes.cpp)
target_include_directories(sluice_lwip_m PRIVATE ${PROJECT_SOURCE_DIR}/cmake/cortex-m/lwip)
target_include_directories(sluice_lwip_m SYSTEM PRIVATE ${SLUICE_LWIP_INCLUDE_DIR})
target_link_libraries(sluice_lwip_m PRIVATE sluice_portable)

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
