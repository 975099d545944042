# The lwIP backend (src/embedded/lwip/: an OutQueue drained with tcp_write, input
# through tcp_recv) and its tests against a real lwIP: Debian's liblwip
# (lwIP 2.1, pkg-config "lwip"), its TCP talking to itself inside the test
# process (tests/embedded/lwip/lwip_net.hpp).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LWIP REQUIRED IMPORTED_TARGET lwip)

# The push server core for devices (src/embedded/): SSE and WebSocket
# subscribers on one loop of a callback TCP stack, no threads, no heap after
# start-up. It knows no stack; the lwIP backend below is its first one.
file(GLOB embedded_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/embedded/*.cpp)
add_library(sluice_embedded STATIC ${embedded_srcs})
target_link_libraries(sluice_embedded PUBLIC sluice)
target_compile_options(sluice_embedded PRIVATE -fno-exceptions -fno-rtti)

file(GLOB lwip_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/embedded/lwip/*.cpp)
add_library(sluice_lwip STATIC ${lwip_srcs})
target_link_libraries(sluice_lwip PUBLIC sluice_embedded PkgConfig::LWIP)
# It runs where lwIP does, on a microcontroller: no exceptions, no RTTI.
target_compile_options(sluice_lwip PRIVATE -fno-exceptions -fno-rtti)

find_package(GTest REQUIRED)
include(GoogleTest)
file(GLOB lwip_test_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/embedded/lwip/*.cpp)
add_executable(lwip_tests ${lwip_test_srcs})
target_link_libraries(lwip_tests PRIVATE sluice_lwip sluice_test_support GTest::gtest_main)
sluice_register_tests(lwip_tests UNIT)

# The embedded core's own tests (tests/embedded): the server over an
# in-memory link, the same files the Cortex-M board runs.
file(GLOB embedded_test_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/embedded/*_test.cpp)
add_executable(embedded_tests ${embedded_test_srcs})
target_link_libraries(embedded_tests PRIVATE sluice_embedded sluice_test_support sluice_alloc_counter GTest::gtest_main)
sluice_register_tests(embedded_tests UNIT)
