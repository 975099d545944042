# sluice_metrics: per-loop counters, gauges and histograms, summed at scrape
# time into the Prometheus text format (src/metrics/). It depends on nothing
# else of sluice, so the server, the dashboard's system topic and tests can
# all use it.
file(GLOB metrics_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/metrics/*.cpp)
add_library(sluice_metrics STATIC ${metrics_srcs})
target_include_directories(sluice_metrics PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)
target_link_libraries(sluice_metrics PUBLIC Threads::Threads)

# The suggested alerting rules load in Prometheus, and each fires on series
# that cross its line and stays quiet on series that do not.
add_test(NAME Ops.AlertRulesLoadAndFire
         COMMAND sh -c "promtool check rules docs/ops/sluice.rules.yml && promtool test rules tests/ops/alerts_test.yml"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
