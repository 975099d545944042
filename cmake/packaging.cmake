# Installing and packaging. `cmake --install` puts sluiced, sluice, the
# systemd unit, the default config and the man pages in place;
# `cpack -G DEB` (run in the build directory) makes
# sluice_<version>_<arch>.deb of the same files, with its dependencies
# found by dpkg-shlibdeps and the config a conffile (an upgrade never
# overwrites an operator's edits).
include(GNUInstallDirs)

install(TARGETS sluiced sluice_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/sluiced.service DESTINATION lib/systemd/system COMPONENT runtime)

# The man pages carry the version and are gzipped, as Debian ships them
# (-n: no name or time stamp inside, so the same page gives the same bytes).
set(man_gz)
foreach(page sluiced.8 sluice.1)
  string(REGEX REPLACE ".*\\." "" section ${page})
  set(SLUICE_VERSION ${PROJECT_VERSION})
  configure_file(${PROJECT_SOURCE_DIR}/packaging/${page} ${CMAKE_BINARY_DIR}/man/${page} @ONLY)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/${page}.gz
                     COMMAND gzip -9nf -k ${CMAKE_BINARY_DIR}/man/${page}
                     DEPENDS ${CMAKE_BINARY_DIR}/man/${page} VERBATIM)
  install(FILES ${CMAKE_BINARY_DIR}/man/${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT runtime)
  list(APPEND man_gz ${CMAKE_BINARY_DIR}/man/${page}.gz)
endforeach()
add_custom_target(man_pages ALL DEPENDS ${man_gz})

# The config goes where GNUInstallDirs puts a prefix's sysconfdir: /etc
# for the prefix /usr (the package's), PREFIX/etc for any other. Decided
# when installing, not when configuring, because cpack installs with the
# package's prefix whatever the build directory was configured with.
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(sluice_config_dir /etc/sluice)
  else()
    set(sluice_config_dir \"\${CMAKE_INSTALL_PREFIX}/etc/sluice\")
  endif()
  file(INSTALL \"${PROJECT_SOURCE_DIR}/packaging/sluiced.toml\" DESTINATION \"\${sluice_config_dir}\")
" COMPONENT runtime)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sluice)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "real-time push server over Server-Sent Events and WebSocket")
set(CPACK_PACKAGE_DESCRIPTION "sluiced pushes events to subscribers over Server-Sent Events and WebSocket with
bounded memory and bounded latency; sluice subscribes and publishes from the command line.")
set(CPACK_PACKAGE_CONTACT "sluice maintainers <sluice@localhost>")
# Install with the prefix /usr and DESTDIR the staging tree, so that
# /etc/sluice lands in the package and not on the building machine.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
# The server's files only: headers, libraries and CMake files that other
# install rules may add belong to another package.
set(CPACK_COMPONENTS_ALL runtime)
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};sluice;runtime;/")
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
file(WRITE ${CMAKE_BINARY_DIR}/packaging/conffiles "/etc/sluice/sluiced.toml\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/packaging/conffiles)
include(CPack)

# Tests (tests/packaging/): the man pages against each program's --help, the
# unit's sandboxing, and the .deb built, installed into a scratch root and
# run. Only an unsanitized build makes the package: a sanitizer's binaries
# are no release artifact (and the debug preset would build it twice).
add_test(NAME Packaging.ManPagesMatchTheHelp
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/man_pages_test.sh ${PROJECT_SOURCE_DIR}
                 $<TARGET_FILE:sluiced> $<TARGET_FILE:sluice_cli>)
add_test(NAME Packaging.UnitIsSandboxed
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/unit_sandbox_test.sh
                 ${PROJECT_SOURCE_DIR}/packaging/sluiced.service $<TARGET_FILE:sluiced> 12)
set_tests_properties(Packaging.UnitIsSandboxed PROPERTIES SKIP_RETURN_CODE 77)
if(NOT SLUICE_SANITIZE AND NOT SLUICE_FUZZ)
  add_test(NAME Packaging.DebBuildsInstallsAndRuns
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/deb_package_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION})
endif()
