# Turns a file into a C++ source defining one dashboard::Asset, run at build
# time (cmake -P) so that editing the file rebuilds the binary:
#   cmake -DINPUT=page.html -DOUTPUT=page.cpp -DFUNCTION=dashboard_page
#         -DCONTENT_TYPE="text/html; charset=utf-8" -P embed_asset.cmake
# The bytes become one string literal of \xHH escapes (each escape ends
# where the next backslash begins, so no digit can run into it), with the
# length given, so NUL bytes would survive too.
file(READ ${INPUT} hex HEX)
file(SHA256 ${INPUT} sha256)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
# 32 bytes per source line.
set(escaped "")
foreach(offset RANGE 0 ${hex_length} 64)
  string(SUBSTRING "${hex}" ${offset} 64 chunk)
  if(NOT chunk STREQUAL "")
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" chunk "${chunk}")
    string(APPEND escaped "\n    \"${chunk}\"")
  endif()
endforeach()
string(SUBSTRING ${sha256} 0 32 etag)
get_filename_component(name ${INPUT} NAME)
file(WRITE ${OUTPUT}.tmp "// Generated from ${name} by cmake/embed_asset.cmake: edit ${name}, not this.
#include \"dashboard/asset.hpp\"

namespace sluice::dashboard {

const Asset& ${FUNCTION}() {
  static constexpr Asset kAsset{
      std::string_view(${escaped},
          ${size}),
      \"${CONTENT_TYPE}\", \"\\\"${etag}\\\"\"};
  return kAsset;
}

}  // namespace sluice::dashboard
")
# Only a change rewrites the file, so an unchanged asset rebuilds nothing.
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
