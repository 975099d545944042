// Conformance groups 12 and 13 (Autobahn|Testsuite): permessage-deflate
// (RFC 7692). Negotiation: the server always answers with
// server_no_context_takeover (its fan-out frames are compressed once for
// every subscriber), accepts the client's window and context parameters,
// and declines an offer it cannot honour. Messages: what the client
// compresses, with or without context takeover and with a small window,
// is inflated and echoed compressed; a message that inflates past
// ws.max_message (a compression bomb) is refused with 1009.
#include <gtest/gtest.h>

#include "ws_test_client.hpp"

namespace sluice::test::ws {
namespace {

constexpr std::string_view kAccepted = "permessage-deflate; server_no_context_takeover";

// Text that compresses as real traffic does: repetitive, but not one byte.
std::string sample_text(std::size_t n) {
  static const std::string_view kWords[] = {"price ", "tick ", "{\"id\":", "42, ", "sluice ", "stream\n"};
  std::string out;
  for (std::size_t i = 0; out.size() < n; ++i) out += kWords[(i * 7 + i / 3) % std::size(kWords)];
  out.resize(n);
  return out;
}

// Bytes that do not compress.
std::string noise(std::size_t n) {
  std::string out(n, '\0');
  std::uint32_t x = 2463534242u;
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return out;
}

Exchange offered(Exchange e, std::string offer, std::string response = std::string(kAccepted)) {
  e.upgrade.extensions = std::move(offer);
  e.headers = {{"Sec-WebSocket-Extensions", std::move(response)}};
  return e;
}

// Offers `offer`, expects `response`, then sends `messages` compressed by
// `deflater`, each to be echoed compressed.
Exchange compressed_echo(std::string offer, std::string response, ClientDeflater&& deflater,
                         const std::vector<std::string>& messages, std::uint8_t opcode = kText) {
  std::vector<WireFrame> frames;
  std::vector<Reply> replies;
  for (const std::string& m : messages) {
    frames.push_back({.opcode = opcode, .payload = deflater.compress(m), .rsv = kRsv1});
    replies.push_back(message(opcode, m, true));
  }
  return offered(script(frames, replies), std::move(offer), std::move(response));
}

// Three messages, so that a window carried over (or not) is exercised.
Exchange three_echoed(std::string offer, std::string response, ClientDeflater&& deflater) {
  return compressed_echo(std::move(offer), std::move(response), std::move(deflater),
                         {sample_text(300), sample_text(300), sample_text(500)});
}

Exchange declined(std::string offer) { return offered(script({}, {}), std::move(offer), ""); }

// 13.x: the parameters an offer may carry, and what the server answers.
std::vector<WsCase> negotiation_cases() {
  const std::string k(kAccepted);
  return {
      {"plain_offer", [k] { return three_echoed("permessage-deflate", k, ClientDeflater()); }},
      {"client_no_context_takeover",
       [k] {
         return three_echoed("permessage-deflate; client_no_context_takeover", k + "; client_no_context_takeover",
                             ClientDeflater(15, false));
       }},
      {"server_no_context_takeover",
       [k] { return three_echoed("permessage-deflate; server_no_context_takeover", k, ClientDeflater()); }},
      {"server_max_window_bits_15",
       [k] {
         return three_echoed("permessage-deflate; server_max_window_bits=15", k + "; server_max_window_bits=15",
                             ClientDeflater());
       }},
      {"client_max_window_bits_no_value",
       [k] { return three_echoed("permessage-deflate; client_max_window_bits", k, ClientDeflater()); }},
      {"client_max_window_bits_10",
       [k] {
         return three_echoed("permessage-deflate; client_max_window_bits=10", k + "; client_max_window_bits=10",
                             ClientDeflater(10));
       }},
      {"client_max_window_bits_9_quoted",
       [k] {
         return three_echoed("permessage-deflate; client_max_window_bits=\"9\"", k + "; client_max_window_bits=9",
                             ClientDeflater(9));
       }},
      // A smaller server window than the shared compressor's is declined,
      // and the connection then runs uncompressed.
      {"server_max_window_bits_10_declined",
       [] {
         return offered(script({{.opcode = kText, .payload = "plain"}}, {message(kText, "plain")}),
                        "permessage-deflate; server_max_window_bits=10", "");
       }},
      {"declined_then_rsv1",
       [] {
         return offered(script({{.opcode = kText, .payload = "x", .rsv = kRsv1}}, {closing(1002)}),
                        "permessage-deflate; server_max_window_bits=10", "");
       }},
      {"first_offer_declined_second_taken",
       [k] {
         return offered(script({}, {}),
                        "permessage-deflate; server_max_window_bits=9, permessage-deflate; client_no_context_takeover",
                        k + "; client_no_context_takeover");
       }},
      {"unknown_parameter_declined", [] { return declined("permessage-deflate; mystery=1"); }},
      {"window_16_declined", [] { return declined("permessage-deflate; client_max_window_bits=16"); }},
      {"repeated_parameter_declined",
       [] { return declined("permessage-deflate; client_no_context_takeover; client_no_context_takeover"); }},
      {"other_extension_ignored",
       [k] { return offered(script({}, {}), "x-webkit-deflate-frame, permessage-deflate", k); }},
      // The offers on a second Sec-WebSocket-Extensions line are read as
      // if joined to the first.
      {"offer_on_a_second_line",
       [k] {
         Exchange e = offered(script({}, {}), "x-webkit-deflate-frame", k);
         e.upgrade.extra_headers = "Sec-WebSocket-Extensions: permessage-deflate\r\n";
         return e;
       }},
  };
}

// 12.x: messages of growing size, compressible and not, fragmented, empty.
std::vector<WsCase> message_cases() {
  const std::string k(kAccepted);
  std::vector<WsCase> cases;
  for (const std::size_t n : {16, 64, 256, 1024, 4096, 16384, 65536, 131072}) {
    cases.push_back(
        {"text_" + std::to_string(n), [k, n] {
           return compressed_echo("permessage-deflate", k, ClientDeflater(), {sample_text(n), sample_text(n)});
         }});
  }
  cases.push_back({"binary_noise_65536", [k] {
                     return compressed_echo("permessage-deflate", k, ClientDeflater(), {noise(65536)}, kBinary);
                   }});
  cases.push_back({"empty", [k] { return compressed_echo("permessage-deflate", k, ClientDeflater(), {""}); }});
  cases.push_back({"inflates_to_the_limit", [k] {
                     return compressed_echo("permessage-deflate", k, ClientDeflater(), {std::string(kMaxMessage, 'z')});
                   }});
  cases.push_back({"fragmented_with_a_ping_between", [] {
                     const std::string packed = ClientDeflater().compress(sample_text(5000));
                     const std::size_t third = packed.size() / 3;
                     return offered(
                         script({{.opcode = kText, .payload = packed.substr(0, third), .fin = false, .rsv = kRsv1},
                                 {.opcode = kContinuation, .payload = packed.substr(third, third), .fin = false},
                                 {.opcode = kPing, .payload = "between"},
                                 {.opcode = kContinuation, .payload = packed.substr(2 * third)}},
                                {pong("between"), message(kText, sample_text(5000), true)}),
                         "permessage-deflate");
                   }});
  // RFC 7692 §6: a sender may leave any message uncompressed.
  cases.push_back({"uncompressed_message_allowed", [] {
                     return offered(script({{.opcode = kText, .payload = "as is"}}, {message(kText, "as is", true)}),
                                    "permessage-deflate");
                   }});
  return cases;
}

Exchange fails(const WireFrame& frame, int code) {
  return offered(script({frame}, {closing(code)}), "permessage-deflate");
}

std::vector<WsCase> error_cases() {
  return {
      {"bomb_4MiB_of_zeros",
       [] {
         return fails({.opcode = kBinary,
                       .payload = ClientDeflater().compress(std::string(4 * kMaxMessage, '\0')),
                       .rsv = kRsv1},
                      1009);
       }},
      {"inflates_one_byte_over",
       [] {
         return fails(
             {.opcode = kText, .payload = ClientDeflater().compress(std::string(kMaxMessage + 1, 'z')), .rsv = kRsv1},
             1009);
       }},
      {"not_deflate_data",
       [] { return fails({.opcode = kBinary, .payload = "\xFF\xFF\xFF\xFF", .rsv = kRsv1}, 1007); }},
      {"inflates_to_invalid_utf8",
       [] {
         return fails({.opcode = kText, .payload = ClientDeflater().compress("ok \xED\xA0\x80"), .rsv = kRsv1}, 1007);
       }},
      {"rsv1_on_a_continuation",
       [] {
         return offered(
             script({{.opcode = kText, .payload = ClientDeflater().compress("first"), .fin = false, .rsv = kRsv1},
                     {.opcode = kContinuation, .rsv = kRsv1}},
                    {closing(1002)}),
             "permessage-deflate");
       }},
      {"rsv1_on_a_ping", [] { return fails({.opcode = kPing, .payload = "p", .rsv = kRsv1}, 1002); }},
  };
}

INSTANTIATE_TEST_SUITE_P(G13_DeflateNegotiation, WsConformance, testing::ValuesIn(negotiation_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G12_DeflateMessages, WsConformance, testing::ValuesIn(message_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(G12_DeflateErrors, WsConformance, testing::ValuesIn(error_cases()), case_name);

}  // namespace
}  // namespace sluice::test::ws
