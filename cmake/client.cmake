# The client side: libsluice_client (SSE and WebSocket clients, publisher),
# the `sluice` command-line tool, and client_tests.
file(GLOB client_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/client/*.cpp)
add_library(sluice_client STATIC ${client_srcs})
target_include_directories(sluice_client PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                         PRIVATE ${PROJECT_SOURCE_DIR}/src/client)
# https:// and wss:// (TLS) and HTTP/2 for SSE come from the transports.
target_link_libraries(sluice_client PUBLIC sluice_core Threads::Threads PRIVATE sluice_transport)
add_library(sluice::client ALIAS sluice_client)

file(GLOB cli_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tools/sluice/*.cpp)
add_executable(sluice_cli ${cli_srcs})
set_target_properties(sluice_cli PROPERTIES OUTPUT_NAME sluice)
target_compile_definitions(sluice_cli PRIVATE SLUICE_VERSION="${PROJECT_VERSION}")
target_link_libraries(sluice_cli PRIVATE sluice_client sluice_auth CLI11::CLI11 nlohmann_json::nlohmann_json)

find_package(GTest REQUIRED)  # its targets are local to tests/, where it was found first
include(GoogleTest)
file(GLOB client_test_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/client/*_test.cpp
                                             ${PROJECT_SOURCE_DIR}/tests/client/*_support.cpp)
add_executable(client_tests ${client_test_srcs})
# Tests reach the internals (inbox, backoff, parsers) through src/client.
target_include_directories(client_tests PRIVATE ${PROJECT_SOURCE_DIR}/src/client ${PROJECT_SOURCE_DIR}/tests/client)
target_link_libraries(client_tests PRIVATE sluice_client sluice_auth sluice_test_net sluice_test_tls GTest::gtest_main)
add_dependencies(client_tests sluice_cli sluiced)
# gtest_discover_tests passes one ENVIRONMENT entry only, so the tool's path
# is compiled in (SLUICE_CLI in the environment overrides it).
target_compile_definitions(client_tests PRIVATE SLUICE_CLI_PATH="$<TARGET_FILE:sluice_cli>")
sluice_test_compile_settings(client_tests)
gtest_discover_tests(client_tests DISCOVERY_MODE PRE_TEST
  PROPERTIES ENVIRONMENT "SLUICED=$<TARGET_FILE:sluiced>")

# examples/CMakeLists.txt links every example to sluice_server; the
# subscriber is a client.
target_link_libraries(example_subscriber PRIVATE sluice_client)
