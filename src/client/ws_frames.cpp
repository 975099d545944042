#include "ws_frames.hpp"

#include "buf/sink.hpp"

namespace sluice::client::detail {

namespace {

class StringSink final : public buf::Sink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  bool append(const char* data, std::size_t n) override {
    out_.append(data, n);
    return true;
  }
  using buf::Sink::append;

 private:
  std::string& out_;
};

}  // namespace

bool append_client_frame(std::string& out, proto::ws::Opcode op, std::span<const char> payload) {
  proto::ws::MaskKey key{};
  if (!proto::ws::make_mask_key(key)) return false;
  StringSink sink(out);
  return proto::ws::encode_masked_frame(op, true, false, payload, key, sink);
}

bool append_client_close(std::string& out, proto::ws::CloseCode code) {
  const bool sendable = proto::ws::is_valid_close_code(proto::ws::to_wire(code));
  proto::ws::ClosePayload payload;
  if (sendable && !proto::ws::make_close_payload(code, {}, payload)) return false;
  return append_client_frame(out, proto::ws::Opcode::close, payload.view());
}

}  // namespace sluice::client::detail
