#include "conn/connection.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <utility>

#include "io/arrival_stamp.hpp"

namespace sluice::conn {

Connection::Connection(io::Loop& loop, std::unique_ptr<Transport> transport,
                       const ConnectionLimits& limits)
    : OwnedQueue(limits.send),
      Outlet(loop, owned_queue, *this),
      transport_(std::move(transport)),
      limits_(limits),
      memory_(limits.memory_cap, limits.memory_bytes),
      transport_memory_(limits.memory_cap, transport_->most_held()),
      last_activity_(loop.now()) {
  writer_.target = transport_.get();
}

Connection::~Connection() {
  loop().forget(this);
  loop().reads().remove(this);
  if (transport_) loop().unwatch(transport_->fd());
}

int Connection::start() { return loop().watch(transport_->fd(), io::kReadable, this); }

void Connection::close_after_flush(CloseReason reason) {
  if (ended()) return;
  set_closing();
  close_reason_ = reason;
  want_flush();
}

void Connection::close_now(CloseReason reason) {
  if (closed()) return;
  loop().forget(this);
  loop().reads().remove(this);
  loop().unwatch(transport_->fd());
  gate_.reset();  // before the socket it reads
  transport_.reset();  // closes the socket
  transport_memory_.release(transport_charge_);
  transport_charge_ = 0;
  writer_.target = nullptr;
  set_closed();
  queue().clear();
  on_closed(reason);
}

void Connection::on_ready(std::uint32_t events) {
  if (closed()) return;
  if (events & io::kError) return close_now(CloseReason::io_error);
  if (events & (io::kReadable | io::kHangup)) read_unless_queued();
  if (closed() || (events & io::kWritable) == 0) return;
  // A TLS handshake (or a read) that had to send first goes on now.
  if (transport_->read_wants_writable()) read_unless_queued();
  if (!closed()) want_flush();
}

void Connection::read_available() {
  // Edge-triggered: read until EAGAIN, unless the input budget is full (the
  // protocol then has a whole request or message it must act on first) or
  // the turn is over; then the connection waits in the loop's read queue,
  // as no new event will come for the bytes already there. Without turns a
  // client that keeps its socket full (a publisher pipelining POSTs) held
  // the loop until it paused, every other socket and flush waiting behind
  // it; without the tick's budget thousands of them each took a turn on
  // every tick.
  io::ReadQueue& reads = loop().reads();
  const std::size_t limit = reads.turn(limits_.receive_turn, kReadChunk);
  std::array<char, kReadChunk> chunk;
  for (std::size_t turn = 0; !closed();) {
    if (!lingering_ && input_paused()) return;
    if (turn >= limit) return reads.push_back(this);
    const std::size_t want = std::min(chunk.size(), limit - turn);
    std::size_t room = lingering_ ? want : input_room(std::min(want, limits_.receive_budget - input_.size()));
    if (room == 0 || !reserve_for_read(room)) return;
    const long n = transport_->read(chunk.data(), room);
    if (!charge_transport()) return;
    // The turn counts what the read cost, not only the bytes it gave: a
    // TLS record that carried none (a key update, an alert) counts as a
    // whole record, so a client sending only such records gets a turn's
    // worth of them and then waits in the line like any other.
    const std::size_t cost = std::max(n > 0 ? static_cast<std::size_t>(n) : 0, transport_->read_cost());
    turn += cost;
    reads.spend(cost);
    // The socket may hold more after a record that carried no bytes.
    if (n == -EINTR) continue;
    if (n > 0) {
      // What comes while lingering is thrown away and does not put off the
      // linger's end: a client that keeps sending is not waited for.
      if (lingering_) continue;
      last_activity_ = loop().now();
      input_.append(chunk.data(), static_cast<std::size_t>(n));
      on_input(input_);
      if (!closed()) rest_input();
      continue;
    }
    if (n == 0) {
      if (lingering_) return close_now(close_reason_);
      peer_ended_ = true;
      return on_peer_eof();
    }
    if (n != -EAGAIN) return close_now(CloseReason::io_error);
    if (transport_->read_wants_writable()) set_write_interest(true);
    return;
  }
}

void Connection::read_unless_queued() {
  if (!loop().reads().queued(this)) read_available();
}

void Connection::read_turn() {
  if (!closed()) read_available();
}

// The buffer grows to an exact capacity (a fresh string reserved past the
// short-string size gets what it asks for), so what is charged is what is
// held. A refused growth leaves the room already there: the client's next
// bytes wait in its socket.
std::size_t Connection::input_room(std::size_t want, bool answer_refusal) {
  const std::size_t spare = input_.capacity() - input_.size();
  if (want <= spare) return want;
  // An empty buffer is not grown before the read: most reads of an idle
  // stream find nothing, and a buffer taken for them would stay with every
  // idle connection (a read chunk each). The bytes a read does bring are
  // appended into a buffer of their size, within what is never charged.
  if (input_.empty() && want <= kInputResting) return want;
  // Whole powers of two: what a buffer grows to then depends on how much it
  // must hold, not on how the reads that filled it were cut (a TLS record
  // at a time, or a socket's worth), so a request's share lets the same
  // bodies through over TLS as over TCP.
  const std::size_t capacity = std::min(std::bit_ceil(std::max(input_.size() + want, 2 * input_.capacity())),
                                        std::max(limits_.receive_budget, kInputResting));
  const std::size_t charge = buf::charged_part(capacity, kInputResting);
  const buf::ChargeStatus status =
      charge > input_charge_ ? memory_.try_charge(charge - input_charge_) : memory_.resize(input_charge_, charge);
  if (status != buf::ChargeStatus::ok) {
    if (spare > 0 || !answer_refusal) return spare;
    memory_.count_refusal(status);
    on_input_refused(status);
    if (!closed()) rest_input();
    return 0;
  }
  input_charge_ = charge;
  std::string bigger;
  bigger.reserve(capacity);
  bigger.append(input_);
  input_.swap(bigger);
  return std::min(want, input_.capacity() - input_.size());
}

// Once a large request is used up the buffer goes back to its resting
// size: a connection keeps no megabyte for one past message.
void Connection::rest_input() {
  // A closing connection reads no more input (its linger discards): it
  // keeps none while its last bytes drain.
  if (closing() && input_.capacity() > kInputResting) std::string().swap(input_);
  if (input_charge_ == 0 || input_.size() > kInputResting / 2) return;
  // A phase may have let go of the buffer already (see Session::on_input).
  if (input_.capacity() > kInputResting) {
    std::string smaller;
    smaller.reserve(kInputResting);
    smaller.append(input_);
    input_.swap(smaller);
  }
  memory_.release(input_charge_);
  input_charge_ = 0;
}

void Connection::rest_if_quiet(io::Loop::Clock::time_point now) {
  if (closed() || now - last_activity_ < kQuietRest || !input_.empty() || input_charge_ != 0) return;
  if (!queue().empty()) return;
  queue().give_back_slots();
  std::string().swap(input_);
}

void Connection::run_deferred() { flush(); }

void Connection::resume_input() {
  if (ended()) return;
  if (!input_.empty()) on_input(input_);
  if (!closed()) rest_input();
  // The peer's end was read already: the protocol may now have answered
  // all it read before it.
  if (peer_ended_) {
    if (!ended()) on_peer_eof();
    return;
  }
  // Edge-triggered: bytes that arrived while input was paused raised no new
  // event, so read them now (or at the connection's turn, when it waits in
  // the read queue).
  read_unless_queued();
}

bool Connection::bound_unread(const LatencyGateSettings& settings, GateChecks& checks, GateFrames frames) {
  if (gate_tried_ || closed()) return gate_ != nullptr;
  gate_tried_ = true;
  gate_ = LatencyGate::make(transport_->fd(), settings, checks, *this, std::move(frames), loop().now());
  return gate_ != nullptr;
}

void Connection::ask_read_receipts(buf::FrameRef ask) {
  if (!gate_) return;
  gate_->ask_receipts(std::move(ask), this);
  note_input_arrivals();
}

void Connection::read_receipt() {
  if (!gate_) return;
  gate_->receipt(input_arrival());
  // What the gate held for the answer may go now.
  if (gate_->holding()) want_flush();
}

io::Loop::Clock::time_point Connection::input_arrival() {
  return io::arrived_at(transport_ ? transport_->last_arrival() : 0, loop().now());
}

std::optional<io::Loop::Clock::time_point> Connection::unread_since(io::Loop::Clock::time_point now) {
  // Reads that wait for something else (the server's memory, the socket's
  // room for a handshake message) may wait for long.
  if (!transport_ || closed() || input_paused() || read_waits_for_memory_ || transport_->read_wants_writable()) {
    return std::nullopt;
  }
  std::int64_t arrival = 0;
  if (!transport_->unread_input(arrival)) return std::nullopt;
  return io::arrived_at(arrival, now);
}

void Connection::flush() {
  if (closed()) return;
  // A closing connection's last frames never wait: the close follows them.
  const bool gated = gate_ != nullptr && !closing();
  // The gate is told when the flush runs, not when its tick started: work
  // earlier in a long tick (the drains of thousands of connections) would
  // otherwise date an ask before it was written, and its answer late.
  const io::Loop::Clock::time_point now = gated ? io::Loop::Clock::now() : loop().now();
  const DataAllowance allowance = gated ? gate_->plan(now, queue()) : DataAllowance{};
  set_data_held(gated && gate_->holding());
  before_flush();
  // A record the transport took whole but could not send goes first, even
  // when nothing else is queued.
  if (transport_->holds_output() && queue().empty()) {
    const long sent = transport_->writev(nullptr, 0);
    if (sent < 0 && sent != -EAGAIN) return close_now(CloseReason::io_error);
  }
  const std::size_t data_before = queue().data_bytes();
  const FlushResult result = write_queued(writer_, allowance);
  if (!charge_transport()) return;
  if (gated) gate_->flushed(now, result, data_before - queue().data_bytes());
  if (result.bytes > 0) last_activity_ = loop().now();
  switch (result.status) {
    case FlushStatus::error:
      return close_now(CloseReason::io_error);
    case FlushStatus::blocked:
      return set_write_interest(true);
    case FlushStatus::held:
      // The gate has this flushed again when the reader may have room.
      return set_write_interest(false);
    case FlushStatus::drained:
      // The queue let go of every byte, but the transport may still hold
      // some of them (or wait to send a handshake message): not done yet.
      if (transport_waits_for_writable()) return set_write_interest(true);
      set_write_interest(false);
      if (std::exchange(give_back_slots_, false)) queue().give_back_slots();
      if (closing() && !lingering_) return start_linger();
      if (!closing()) on_drained();
      return;
  }
}

// What a read may make the transport hold (a TLS record buffer) is
// charged before the read (and settled by charge_transport() after it),
// so a read the server has no room for is not made. It is charged to the
// server's cap, apart from the connection's share: the transport bounds
// it itself (most_held()), and the share judges what the request holds,
// so a body or message is refused over TLS exactly where it is over TCP.
// The cap being full is no fault of this client's: its read waits, its
// bytes stay in its socket (its TCP window fills, which slows it), and the
// owner's sweep tries again (retry_read_for_memory()); the connection's
// other deadlines still run.
//
// A read that can be held to bytes that leave nothing held after it (a
// whole TLS record, whose buffer OpenSSL gives back within the call) is
// made without a reservation: the bytes that would free memory (a
// WINDOW_UPDATE, the end of a message, a close) are read while the cap is
// full. What such a read allocates lives only within the call, one loop's
// read at a time. A record longer than the read's room (the turn was
// nearly spent, or receive.turn_bytes is shorter than a record) widens the
// room to the record, as far as the input buffer may grow for it without
// a refusal: cut to the turn, it would never fit, and the read would wait
// for as long as the cap stays full.
//
// A record longer than the input buffer's spare room, when the buffer may
// not grow, is read all the same, as TCP would read into that room: the
// read is held to the record, takes what fits, and the transport keeps the
// rest of the record's plaintext in its read buffer (OpenSSL's, one
// record's worth) for the next read, once the protocol has used its input
// (as TCP's bytes wait in the socket). That buffer is charged to the
// cap's reserve (keep_rest_in_reserve(), limits.tls_record_reserve_bytes),
// the slice no other charge may take: the rest of the cap is full, and
// waiting for it would leave a request TCP serves waiting for its
// deadline. Only a connection that holds no read buffer makes such a
// read, and the read takes nothing past the one record, so each
// connection holds at most one record buffer in the reserve, given back
// once the rest is read out. With the reserve full too the read waits, as
// any other read for the cap: what connections hold stays within
// limits.server_bytes.
bool Connection::reserve_for_read(std::size_t& room) {
  const std::size_t reserve = transport_->read_reserve();
  if (reserve == 0) return true;
  const buf::ChargeStatus status = transport_memory_.try_charge(reserve);
  if (status == buf::ChargeStatus::ok) {
    read_waits_for_memory_ = false;
    transport_charge_ += reserve;
    return true;
  }
  if (transport_->confine_read(room)) {
    read_waits_for_memory_ = false;
    return true;
  }
  if (const std::size_t record = transport_->confinable_room();
      record > 0 && (confine_wider(record, room) || keep_rest_in_reserve(reserve))) {
    read_waits_for_memory_ = false;
    return true;
  }
  // Nothing sent yet: the next bytes raise an event of their own.
  if (!transport_->bytes_waiting()) {
    read_waits_for_memory_ = false;
    return false;
  }
  // Counted once a wait, not again at each retry of the sweep.
  if (!read_waits_for_memory_) transport_memory_.count_refusal(status);
  read_waits_for_memory_ = true;
  return false;
}

bool Connection::confine_wider(std::size_t record, std::size_t& room) {
  // The read goes into one chunk (read_available()), which a record must fit.
  if (record <= room || record > kReadChunk) return false;
  std::size_t wider = record;
  if (!lingering_) {
    if (record > limits_.receive_budget - input_.size()) return false;
    wider = input_room(record, false);
  }
  if (wider < record || !transport_->confine_read(wider)) return false;
  room = wider;
  return true;
}

bool Connection::keep_rest_in_reserve(std::size_t reserve) {
  if (transport_memory_.charge_from_reserve(reserve) != buf::ChargeStatus::ok) return false;
  if (!transport_->confine_read_keeping_rest()) {
    transport_memory_.release(reserve);
    return false;
  }
  transport_charge_ += reserve;
  return true;
}

void Connection::retry_read_for_memory() {
  if (!read_waits_for_memory_ || closed()) return;
  read_unless_queued();
}

// The transport's buffers (TLS records) were allocated already when this
// is called: the charge follows them. A connection the account cannot hold
// them for is closed, as its record can neither complete nor wait: no
// bytes are lost that a reply could have told it about (a partial record
// is not a request yet, a record stuck on the socket belongs to a client
// that does not read).
bool Connection::charge_transport() {
  const std::size_t held = transport_->held_bytes();
  if (held == transport_charge_) return true;
  if (transport_memory_.resize(transport_charge_, held) != buf::ChargeStatus::ok) {
    close_now(CloseReason::memory);
    return false;
  }
  transport_charge_ = held;
  return true;
}

void Connection::start_linger() {
  lingering_ = true;
  last_activity_ = loop().now();
  if (transport_->shutdown_write() != 0) return close_now(close_reason_);
  read_unless_queued();
}

bool Connection::transport_waits_for_writable() const {
  return transport_->holds_output() || transport_->read_wants_writable();
}

void Connection::set_write_interest(bool on) {
  // EPOLLOUT is armed only after a short write, and disarmed once drained,
  // so an idle writable socket never wakes the loop.
  if (on == write_armed_) return;
  write_armed_ = on;
  loop().rewatch(transport_->fd(), on ? io::kReadable | io::kWritable : io::kReadable, this);
}

}  // namespace sluice::conn
