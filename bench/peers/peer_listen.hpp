// Owns: the command line of the Boost-based peers, `--listen HOST:PORT`
// (port 0: any free port), parsed without exceptions so that a bad argument
// ends in a usage line and exit code 2, never an abort. C++17: the
// websocketpp peer builds as C++17.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::peers {

struct ListenAddress {
  boost::asio::ip::address host = boost::asio::ip::make_address_v4("127.0.0.1");
  std::uint16_t port = 8080;
};

// Reads argv: nothing (127.0.0.1:8080) or `--listen HOST:PORT`. False on
// anything else.
inline bool parse_listen(int argc, char** argv, ListenAddress& out) {
  if (argc == 1) return true;
  if (argc != 3 || std::string_view(argv[1]) != "--listen") return false;
  const std::string_view text = argv[2];
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  boost::system::error_code ec;
  out.host = boost::asio::ip::make_address(std::string(text.substr(0, colon)), ec);
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data() + colon + 1, end, out.port);
  return !ec && error == std::errc() && stop == end && colon + 1 < text.size();
}

}  // namespace sluice::peers
