#include "server/connection_ref.hpp"

#include "proto/ws_encoder.hpp"
#include "server/worker.hpp"

namespace sluice::server {

SendStatus ConnectionRef::send(std::string_view payload, bool text) const {
  if (worker_ == nullptr) return SendStatus::invalid;
  buf::FrameRef frame = proto::ws::make_message_frame(worker_->pool(), buf::Lane::data,
                                                      text ? proto::ws::Opcode::text : proto::ws::Opcode::binary,
                                                      std::span<const char>(payload.data(), payload.size()));
  if (!frame) return SendStatus::no_memory;
  return worker_->post(id_, std::move(frame));
}

}  // namespace sluice::server
