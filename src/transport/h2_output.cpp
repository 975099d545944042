// A round is a list of pieces in wire order: runs of the frame area, and
// runs of one stream's queue (from `at` bytes past what the round has
// already taken from that queue). The iovecs are built only at write time,
// when every frame of the round is known.
#include "transport/h2_output.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "transport/queue_peek.hpp"

namespace sluice::transport::detail {

namespace {

// Frames other than DATA, and DATA frame headers, of one round.
constexpr std::size_t kFrameArea = 16384;
// Iovecs a round keeps free for one more DATA frame's header.
constexpr int kIovReserve = 2;

struct Piece {
  H2Stream* stream;    // null: a run of the frame area
  std::size_t at;      // frame area: offset; stream: bytes of its queue before this piece in the round
  std::size_t length;
};

struct Round {
  char frames[kFrameArea];
  std::size_t frames_used = 0;
  Piece pieces[IOV_MAX];
  int piece_count = 0;
  int iov_used = 0;  // iovecs the pieces will need
  std::size_t bytes = 0;
  struct iovec iov[IOV_MAX];
};

thread_local Round t_round;

void add_frame_piece(Round& round, std::size_t at, std::size_t length) {
  if (round.piece_count > 0) {
    Piece& last = round.pieces[round.piece_count - 1];
    if (last.stream == nullptr && last.at + last.length == at) {
      last.length += length;
      round.bytes += length;
      return;
    }
  }
  round.pieces[round.piece_count++] = {nullptr, at, length};
  ++round.iov_used;
  round.bytes += length;
}

}  // namespace

void H2Output::begin_round() {
  Round& round = t_round;
  round.frames_used = 0;
  round.piece_count = 0;
  round.iov_used = 0;
  round.bytes = 0;
}

bool H2Output::round_full() const {
  const Round& round = t_round;
  return round.bytes >= kRoundBytes || round.iov_used + kIovReserve + 1 >= IOV_MAX ||
         round.piece_count + 2 >= IOV_MAX;
}

bool H2Output::round_empty() const { return t_round.piece_count == 0; }

bool H2Output::can_take_data_frame() const {
  return !round_full() && t_round.frames_used + 9 <= kFrameArea && payload_iov_room() > 0;
}

int H2Output::payload_iov_room() const { return std::max(0, IOV_MAX - t_round.iov_used - kIovReserve); }

std::size_t H2Output::add_frame_bytes(const std::uint8_t* data, std::size_t length) {
  Round& round = t_round;
  if (round.piece_count + 2 >= IOV_MAX) return 0;
  const std::size_t take = std::min(length, kFrameArea - round.frames_used);
  if (take == 0) return 0;
  std::memcpy(round.frames + round.frames_used, data, take);
  add_frame_piece(round, round.frames_used, take);
  round.frames_used += take;
  return take;
}

void H2Output::add_data_frame(const std::uint8_t* header, H2Stream* stream, std::size_t length) {
  Round& round = t_round;
  // The session checks room before it lets nghttp2 make a DATA frame, so
  // the 9 header bytes always fit.
  std::memcpy(round.frames + round.frames_used, header, 9);
  add_frame_piece(round, round.frames_used, 9);
  round.frames_used += 9;
  if (length == 0) return;
  const int room = payload_iov_room();
  round.pieces[round.piece_count++] = {stream, stream->in_round, length};
  struct iovec scratch[IOV_MAX];
  round.iov_used += peek(stream->queue, stream->in_round, length, scratch, room).count;
  round.bytes += length;
  stream->in_round += length;
}

bool H2Output::note_write(long wrote, std::size_t offered, conn::FlushResult& result) {
  ++result.calls;
  if (wrote < 0 && wrote != -EAGAIN) {
    result.status = conn::FlushStatus::error;
    result.error = static_cast<int>(-wrote);
    return false;
  }
  const std::size_t taken = wrote < 0 ? 0 : std::min(static_cast<std::size_t>(wrote), offered);
  result.bytes += taken;
  if (taken < offered) result.status = conn::FlushStatus::blocked;
  return taken == offered;
}

bool H2Output::write_pending(conn::Writer& writer, conn::FlushResult& result) {
  if (!has_pending()) return true;
  struct iovec iov{pending_.data() + pending_at_, pending_bytes()};
  const long wrote = writer.writev(&iov, 1);
  const std::size_t offered = iov.iov_len;
  const bool all = note_write(wrote, offered, result);
  if (wrote > 0) pending_at_ += std::min(static_cast<std::size_t>(wrote), offered);
  if (!has_pending()) {
    // Given back: a connection that is not blocked holds no copy.
    std::string().swap(pending_);
    pending_at_ = 0;
  }
  return all;
}

bool H2Output::write_round(conn::Writer& writer, conn::FlushResult& result) {
  Round& round = t_round;
  int count = 0;
  for (int i = 0; i < round.piece_count; ++i) {
    const Piece& piece = round.pieces[i];
    if (piece.stream == nullptr) {
      round.iov[count++] = iovec{round.frames + piece.at, piece.length};
      continue;
    }
    count += peek(piece.stream->queue, piece.at, piece.length, round.iov + count, IOV_MAX - count).count;
  }
  const long wrote = writer.writev(round.iov, count);
  const bool all = note_write(wrote, round.bytes, result);
  settle(result.status == conn::FlushStatus::error ? 0 : static_cast<std::size_t>(std::max(wrote, 0L)));
  begin_round();
  return all;
}

// Lets each stream's queue go of what the transport took, and copies what
// it did not take into `pending`, in wire order.
void H2Output::settle(std::size_t taken) {
  Round& round = t_round;
  for (int i = 0; i < round.piece_count; ++i) {
    const Piece& piece = round.pieces[i];
    const std::size_t sent = std::min(taken, piece.length);
    taken -= sent;
    const std::size_t rest = piece.length - sent;
    produced_ += piece.length;
    if (piece.stream == nullptr) {
      pending_.append(round.frames + piece.at + sent, rest);
      continue;
    }
    H2Stream& stream = *piece.stream;
    stream.sent += piece.length;
    if (stream.budget != SIZE_MAX) stream.budget -= std::min(stream.budget, piece.length);
    if (stream.marks.watching()) stream.marks.add(produced_, stream.sent);
    conn::OutQueue& queue = piece.stream->queue;
    take(queue, sent);
    if (rest > 0) {
      const std::size_t at = pending_.size();
      pending_.resize(at + rest);
      copy_out(queue, 0, rest, pending_.data() + at);
      take(queue, rest);
    }
    piece.stream->in_round -= piece.length;
  }
}

}  // namespace sluice::transport::detail
