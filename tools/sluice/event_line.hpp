// Owns: how `sluice sub` prints one event as one line: plain
// ("ID EVENT DATA") for people, or a JSON object for programs.
#pragma once

#include <string>

#include "sluice/client/event.hpp"

namespace sluice::cli {

// "ID EVENT DATA": "-" for an empty id; in DATA, a backslash, LF and CR are
// written \\, \n and \r and other control bytes \xHH, so that one event
// stays one line.
void format_plain(const client::Event& event, std::string& line);

// {"kind":..,"topic":..,"id":..,"event":..,"data":..} plus "dropped" for a
// dropped notice and "req"/"ok" for an ack. Data that is not UTF-8 goes as
// "data_b64" (base64) instead of "data".
void format_json(const client::Event& event, std::string& line);

}  // namespace sluice::cli
