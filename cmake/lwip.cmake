# Tests against a real lwIP: Debian's liblwip (lwIP 2.1, pkg-config "lwip"),
# its TCP talking to itself inside the test process
# (tests/io/lwip/lwip_net.hpp).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LWIP REQUIRED IMPORTED_TARGET lwip)

find_package(GTest REQUIRED)
include(GoogleTest)
file(GLOB lwip_test_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/io/lwip/*.cpp)
add_executable(lwip_tests ${lwip_test_srcs})
target_link_libraries(lwip_tests PRIVATE sluice_test_support PkgConfig::LWIP GTest::gtest_main)
gtest_discover_tests(lwip_tests DISCOVERY_MODE PRE_TEST)
