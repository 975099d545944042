# Installing the library for other programs (the `dev` component):
# `cmake --install BUILD --component dev` puts the static libraries, the
# public headers (include/sluice/, and nothing from src/), a CMake package
# and a pkg-config file under the prefix:
#   find_package(sluice)  ->  sluice::sluice (the server) and sluice::client
#   pkg-config --cflags --libs sluice
# The programs (sluiced, the server, and sluice, the command-line client)
# are the `runtime` component (cmake/packaging.cmake, with the unit, the
# config and the man pages): `cmake --install BUILD --component runtime`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The archives an application links: the server (libsluice.a) over the
# event engine (libsluice_engine.a) and the portable core (libsluice_core.a);
# the client (libsluice_client.a) over its transports (libsluice_transport.a:
# TLS and HTTP/2) and the same core.
set_target_properties(sluice_core PROPERTIES EXPORT_NAME core)
set_target_properties(sluice PROPERTIES EXPORT_NAME engine OUTPUT_NAME sluice_engine)
set_target_properties(sluice_server PROPERTIES EXPORT_NAME sluice OUTPUT_NAME sluice)
set_target_properties(sluice_client PROPERTIES EXPORT_NAME client)
set_target_properties(sluice_transport PROPERTIES EXPORT_NAME transport)

install(TARGETS sluice_core sluice sluice_server sluice_client sluice_transport sluice_metrics sluice_dashboard
                sluice_log sluice_broker EXPORT sluiceTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/sluice DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp")

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/sluice)
install(EXPORT sluiceTargets NAMESPACE sluice:: DESTINATION ${config_dir} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sluiceConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/sluiceConfig.cmake INSTALL_DESTINATION ${config_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/sluiceConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/sluiceConfig.cmake ${CMAKE_BINARY_DIR}/package/sluiceConfigVersion.cmake
        DESTINATION ${config_dir} COMPONENT dev)

# Found from the .pc file's own place, so that the tree may be installed
# under any prefix (cmake --install --prefix) and still be found.
file(RELATIVE_PATH SLUICE_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/sluice.pc.in ${CMAKE_BINARY_DIR}/package/sluice.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/sluice.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# The installed package, used as an application would use it (a sanitized
# build's archives would need the sanitizer's runtime in the application).
# Offline: the consumer needs nothing the build did not.
if(NOT SLUICE_SANITIZE AND NOT SLUICE_FUZZ)
  add_test(NAME Package.AnApplicationBuildsAgainstTheInstalledLibrary
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/package/install_test.sh ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(Package.AnApplicationBuildsAgainstTheInstalledLibrary PROPERTIES TIMEOUT 300)
endif()
