#include <gtest/gtest.h>

#include "proto/ws_decoder.hpp"
#include "proto/ws_deflate.hpp"
#include "proto/ws_handshake.hpp"

namespace sluice::proto::ws {
namespace {

TEST(WsDeflateOff, EveryOfferIsDeclined) {
  EXPECT_FALSE(negotiate_deflate("permessage-deflate").enabled);
  EXPECT_FALSE(negotiate_deflate("permessage-deflate; client_max_window_bits").enabled);
}

TEST(WsDeflateOff, NoCodecIsEverReady) {
  EXPECT_FALSE(Inflater(15, false, 1024).ok());
  EXPECT_FALSE(Deflater().ok());
  Decoder decoder;
  DeflateParams params;
  params.enabled = true;
  EXPECT_FALSE(decoder.set_deflate(params));
}

}  // namespace
}  // namespace sluice::proto::ws
