# sluice_log: structured log lines (logfmt or JSON), written to standard
# error without ever blocking a loop, with credentials redacted (src/log/).
file(GLOB log_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/log/*.cpp)
add_library(sluice_log STATIC ${log_srcs})
target_include_directories(sluice_log PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)
