# sluice_dashboard: the live dashboard page, embedded into the binary, and
# the system topic's snapshots it draws (src/dashboard/).
set(dashboard_page_cpp ${CMAKE_BINARY_DIR}/generated/dashboard_page.cpp)
add_custom_command(
  OUTPUT ${dashboard_page_cpp}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${PROJECT_SOURCE_DIR}/src/dashboard/dashboard.html -DOUTPUT=${dashboard_page_cpp}
          -DFUNCTION=dashboard_page "-DCONTENT_TYPE=text/html; charset=utf-8"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_asset.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/src/dashboard/dashboard.html ${PROJECT_SOURCE_DIR}/cmake/embed_asset.cmake
  COMMENT "Embedding src/dashboard/dashboard.html"
  VERBATIM)
file(GLOB dashboard_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/dashboard/*.cpp)
add_library(sluice_dashboard STATIC ${dashboard_srcs} ${dashboard_page_cpp})
target_include_directories(sluice_dashboard PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)
target_link_libraries(sluice_dashboard PUBLIC sluice_metrics PRIVATE sluice_core)
