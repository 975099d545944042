# The transports under the sessions: TLS (OpenSSL) and HTTP/2 (nghttp2), as
# libsluice_transport, and transport_tests.
find_package(PkgConfig REQUIRED)
pkg_check_modules(NGHTTP2 REQUIRED IMPORTED_TARGET libnghttp2>=1.52)

# Plain TCP is in libsluice itself; the encrypted and multiplexed ones here.
file(GLOB transport_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/transport/*.cpp)
list(FILTER transport_srcs INCLUDE REGEX "/(tls_|h2_|queue_peek)[^/]*\\.cpp$")
add_library(sluice_transport STATIC ${transport_srcs})
target_include_directories(sluice_transport PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
                                                 $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
target_link_libraries(sluice_transport PUBLIC sluice OpenSSL::SSL PkgConfig::NGHTTP2)

# For tests of TLS and HTTP/2, here and in client_tests: certificates made
# with the openssl CLI at test time (never committed), a TLS front for a
# plain server, and a small HTTP/2 server made of the engines.
add_library(sluice_test_tls STATIC ${PROJECT_SOURCE_DIR}/tests/support/test_certs.cpp
                                   ${PROJECT_SOURCE_DIR}/tests/support/tls_front.cpp
                                   ${PROJECT_SOURCE_DIR}/tests/support/h2_test_server.cpp)
target_include_directories(sluice_test_tls PUBLIC ${PROJECT_SOURCE_DIR}/tests/support)
target_link_libraries(sluice_test_tls PUBLIC sluice_transport sluice_test_net)

file(GLOB transport_test_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/transport/*.cpp)
add_executable(transport_tests ${transport_test_srcs})
target_include_directories(transport_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/transport)
target_link_libraries(transport_tests PRIVATE sluice_transport sluice_test_tls GTest::gtest_main)
sluice_test_compile_settings(transport_tests)
sluice_register_tests(transport_tests UNIT)

# The HTTP/2 session's fuzz target: its corpus is replayed by the tests
# under the normal compiler, and with the fuzz preset it is a libFuzzer
# binary of its own (build/fuzz/h2_session_fuzz fuzz/corpus/h2_session_fuzz).
add_executable(h2_session_fuzz_replay ${PROJECT_SOURCE_DIR}/fuzz/transport/h2_session_fuzz.cpp
                                      ${PROJECT_SOURCE_DIR}/fuzz/replay_main.cpp)
target_link_libraries(h2_session_fuzz_replay PRIVATE sluice_transport)
add_test(NAME h2_session_fuzz_corpus
         COMMAND h2_session_fuzz_replay ${PROJECT_SOURCE_DIR}/fuzz/corpus/h2_session_fuzz)
if(SLUICE_FUZZ)
  add_executable(h2_session_fuzz ${PROJECT_SOURCE_DIR}/fuzz/transport/h2_session_fuzz.cpp)
  target_compile_options(h2_session_fuzz PRIVATE -fsanitize=fuzzer)
  target_link_options(h2_session_fuzz PRIVATE -fsanitize=fuzzer)
  target_link_libraries(h2_session_fuzz PRIVATE sluice_transport)
endif()
