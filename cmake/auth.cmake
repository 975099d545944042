# auth/: token verification, topic grants, rate limits and the authorization
# callback client; the server links it in. Its headers sit beside the sources
# and are included as "auth/x.hpp", like every layer's internal headers.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBJWT REQUIRED IMPORTED_TARGET libjwt)
sluice_layer_sources(auth_srcs auth)
add_library(sluice_auth STATIC ${auth_srcs})
target_include_directories(sluice_auth PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(sluice_auth PUBLIC sluice OpenSSL::Crypto
                      PRIVATE sluice_log sluice_client PkgConfig::LIBJWT nlohmann_json::nlohmann_json)
