// Owns: writing a JSON string literal into a Sink. sluice builds its few JSON
// messages (notices, /ws events) straight into pool blocks, so it needs the
// escaping rules without a document model or an allocation.
#pragma once

#include <string_view>

#include "buf/sink.hpp"

namespace sluice::proto {

// Appends `text` as a quoted JSON string: quote, backslash and control
// characters escaped, everything else copied (the caller passes UTF-8).
// Returns the sink's answer.
bool append_json_string(buf::Sink& out, std::string_view text);

}  // namespace sluice::proto
