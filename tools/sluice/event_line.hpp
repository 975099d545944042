// Owns: how `sluice sub` prints one event as one line: plain
// ("ID EVENT DATA") for people, or a JSON object for programs.
#pragma once

#include <string>
#include <string_view>

#include "sluice/client/event.hpp"

namespace sluice::cli {

// "ID EVENT DATA", or "TOPIC ID EVENT DATA" `with_topic` (a stream of
// several topics, whose ids count per topic): "-" for an empty id; in each,
// a backslash, LF and CR are written \\, \n and \r and other control bytes
// \xHH, so that one event stays one line and a server cannot send the
// terminal a control sequence.
void format_plain(const client::Event& event, bool with_topic, std::string& line);

// `text` with a backslash, LF and CR written \\, \n and \r, and other
// control bytes (C0, DEL, and C1 as UTF-8 writes them) as \xHH: what a
// server sent, made safe to print to a terminal.
[[nodiscard]] std::string escaped(std::string_view text);

// {"kind":..,"topic":..,"id":..,"event":..,"data":..} plus "dropped" for a
// dropped notice and "req"/"ok" for an ack. Data that is not UTF-8 goes as
// "data_b64" (base64) instead of "data".
void format_json(const client::Event& event, std::string& line);

}  // namespace sluice::cli
