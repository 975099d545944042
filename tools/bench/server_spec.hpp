// Owns: ServerSpec, one server of a comparison as the command line names
// it (--server or --tls-server NAME[@TRANSPORT]=COMMAND), and its parsing.
// The transport is chosen per server, so that one run can put the same
// server over HTTP/1.1 and over HTTP/2 side by side:
//   NAME=COMMAND            HTTP/1.1 (or, under --h2c, h2c)
//   NAME@h1=COMMAND         HTTP/1.1, whatever --h2c says
//   NAME@h2c[/K]=COMMAND    --server: HTTP/2 by prior knowledge, K streams
//                           to a connection (1 unless given)
//   NAME@h2[/K]=COMMAND     --tls-server: HTTP/2 chosen by ALPN, K streams
// The row's name is everything before '=', the transport included.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tls_client.hpp"

namespace sluice::bench {

struct ServerSpec {
  std::string name;     // the result's "server": NAME with its @TRANSPORT
  std::string command;  // empty: the server at --target
  bool tls = false;     // --tls-server
  bool transport_named = false;  // an @TRANSPORT was given: --h2c does not apply
  HttpVersion http = HttpVersion::http1;
  std::size_t streams_per_connection = 1;  // over HTTP/2
};

// What a scenario's clients can read besides HTTP/1.1 in clear.
struct Transports {
  bool tls = false;          // --tls-server
  std::size_t h2_streams = 0;  // most streams on one HTTP/2 connection; 0: no HTTP/2
  // --link mode=packet: the scenario makes its readers in the link's
  // readers' namespace and its publishers in the server's (ServerUnderTest).
  bool packet_link = false;
};

// Parses NAME[@TRANSPORT]=COMMAND (or a bare COMMAND, which is its own
// name) of a --server (`tls` false) or --tls-server. Empty on success,
// else one line saying what is wrong and what would be right.
[[nodiscard]] std::string parse_server_spec(std::string_view text, bool tls, const Transports& can, ServerSpec& out);

// "http/1.1", "h2c" or "h2": what the scenario's clients speak to it.
[[nodiscard]] std::string transport_name(const ServerSpec& spec);

}  // namespace sluice::bench
