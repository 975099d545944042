// ConnectionRef: the application's handle on one connection, usable from
// any thread (sluice/connection_ref.hpp), over the state the connection
// shares with it (session/connection_state.hpp).
#include "proto/ws_encoder.hpp"
#include "session/connection_state.hpp"
#include "sluice/connection_ref.hpp"

namespace sluice::server {

ConnectionRef::ConnectionRef(std::shared_ptr<session::ConnectionState> state) : state_(std::move(state)) {}

SendStatus ConnectionRef::send(std::string_view payload, bool text) const {
  if (state_ == nullptr) return SendStatus::invalid;
  if (state_->closed.load(std::memory_order_acquire)) return SendStatus::closed;
  buf::FrameRef frame = proto::ws::make_message_frame(state_->pool, buf::Lane::data,
                                                      text ? proto::ws::Opcode::text : proto::ws::Opcode::binary,
                                                      std::span<const char>(payload.data(), payload.size()));
  if (!frame) return SendStatus::no_memory;
  return state_->poster.post(state_->connection, state_->stream, std::move(frame));
}

bool ConnectionRef::closed() const { return state_ == nullptr || state_->closed.load(std::memory_order_acquire); }

std::uint64_t ConnectionRef::id() const { return state_ == nullptr ? 0 : state_->id; }

UserData ConnectionRef::user_data() const { return state_ == nullptr ? UserData() : state_->user.load(); }

void ConnectionRef::set_user_data(UserData data) const {
  if (state_ != nullptr) state_->user.store(std::move(data));
}

}  // namespace sluice::server
