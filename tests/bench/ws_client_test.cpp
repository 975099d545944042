#include "ws_client.hpp"

#include <gtest/gtest.h>

#include <string>

#include "http_reply.hpp"
#include "proto/ws_decoder.hpp"
#include "proto/ws_handshake.hpp"

namespace sluice::bench {
namespace {

namespace ws = proto::ws;

std::string accept_for(const std::string& key) {
  char accept[ws::kAcceptSize + 1];
  EXPECT_TRUE(ws::compute_accept(key, accept));
  return accept;
}

std::string answer(const std::string& accept, const std::string& extra = "") {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
         "Sec-WebSocket-Accept: " + accept + "\r\n" + extra + "\r\n";
}

std::string check(const std::string& text, const std::string& key) {
  ReplyHead head;
  EXPECT_EQ(parse_reply_head(text, head), HeadStatus::ok) << text;
  return check_upgrade(text, head, key);
}

TEST(WsClient, TheRequestCarriesAFreshKey) {
  std::string first, second, key1, key2;
  ASSERT_TRUE(make_upgrade_request("/ws/news", first, key1));
  ASSERT_TRUE(make_upgrade_request("/ws/news", second, key2));
  EXPECT_NE(key1, key2);
  EXPECT_EQ(key1.size(), ws::kKeySize);
  EXPECT_TRUE(first.starts_with("GET /ws/news HTTP/1.1\r\n"));
  EXPECT_NE(first.find("Sec-WebSocket-Key: " + key1 + "\r\n"), std::string::npos);
  EXPECT_TRUE(first.ends_with("\r\n\r\n"));
}

TEST(WsClient, AcceptsOnlyTheRightUpgrade) {
  std::string request, key;
  ASSERT_TRUE(make_upgrade_request("/ws/x", request, key));
  EXPECT_EQ(check(answer(accept_for(key)), key), "");
  EXPECT_NE(check(answer(accept_for(key + "x")), key), "") << "another key's accept";
  EXPECT_NE(check(answer(accept_for(key), "Sec-WebSocket-Extensions: permessage-deflate\r\n"), key), "");
  EXPECT_NE(check("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", key), "");
  EXPECT_NE(check("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept_for(key) +
                      "\r\n\r\n",
                  key),
            "")
      << "no Upgrade header";
}

TEST(WsClient, FramesAreMaskedAndDecodeToTheirPayload) {
  std::string out;
  ASSERT_TRUE(append_masked(out, ws::Opcode::text, "one event"));
  ASSERT_TRUE(append_masked(out, ws::Opcode::pong, "p"));
  ASSERT_TRUE(append_close(out, 1000));
  EXPECT_FALSE(append_masked(out, ws::Opcode::ping, std::string(126, 'x'))) << "control payload over 125";
  EXPECT_EQ(out.find("one event"), std::string::npos) << "the payload is masked on the wire";
  ws::Decoder decoder({.role = ws::Role::server});  // refuses unmasked frames
  std::span<const char> in(out.data(), out.size());
  const ws::DecodeStatus want[] = {ws::DecodeStatus::message, ws::DecodeStatus::pong, ws::DecodeStatus::close};
  for (const ws::DecodeStatus status : want) {
    const ws::DecodeResult r = decoder.feed(in);
    ASSERT_EQ(r.status, status) << (r.error != nullptr ? r.error : "");
    if (status == ws::DecodeStatus::message) {
      EXPECT_EQ(std::string(r.payload.data(), r.payload.size()), "one event");
    }
    if (status == ws::DecodeStatus::close) {
      EXPECT_EQ(r.close_code, ws::CloseCode::normal);
    }
    in = in.subspan(r.consumed);
  }
  EXPECT_TRUE(in.empty());
}

}  // namespace
}  // namespace sluice::bench
