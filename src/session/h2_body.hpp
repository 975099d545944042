// Owns: H2Body, a request body as it arrives over HTTP/2, DATA frame after
// DATA frame, gathered into blocks of the buffer pool rather than the
// heap: a publisher that posts event after event on one connection takes
// blocks and gives them back, and allocates nothing. The pool is the
// process's payload ceiling, so a body is refused when the pool's data
// lane is full, like any other payload; and bodies hold no more of it
// than their share (h2.body_blocks), so that clients that never finish
// their requests cannot leave events without blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "buf/block_share.hpp"
#include "buf/charged_buffer.hpp"
#include "buf/pool.hpp"

namespace sluice::session {

// A body made one run of bytes, or why it could not be.
struct JoinedBody {
  std::string_view bytes;
  buf::Growth growth = buf::Growth::ok;  // not ok: `joined` could not grow (the account refused)
};

// What append() could take.
enum class BodyGrowth : std::uint8_t {
  ok,
  pool_short,  // the pool's data lane had no block
  share_full,  // the blocks of all bodies are at their share
};

class H2Body {
 public:
  // `share`: the blocks all bodies may hold at once; null: no share.
  explicit H2Body(buf::Pool& pool, buf::BlockShare* share = nullptr) : pool_(&pool), share_(share) {}
  ~H2Body() { clear(); }
  H2Body(const H2Body&) = delete;
  H2Body& operator=(const H2Body&) = delete;

  // Adds `bytes`. Short of a block for all of them, what was taken stays
  // (size() tells how much), and the caller makes room and appends the
  // rest, or refuses the body and clears it.
  [[nodiscard]] BodyGrowth append(std::string_view bytes);
  [[nodiscard]] std::size_t size() const { return size_; }
  // The pool bytes the body holds: whole blocks, however little is in them.
  [[nodiscard]] std::size_t held_bytes() const { return blocks_ * pool_->block_size(); }
  // The pool bytes append(`bytes`) would take anew.
  [[nodiscard]] std::size_t growth_for(std::size_t bytes) const;
  // The body as one run of bytes: a view into its block when it fits in
  // one (no copy), else copied into `joined`, charged to its account;
  // `joined` keeps up to buf::kRestingCapacity for the next body, and the
  // caller trims it after a larger one. Valid until the next append() or
  // clear().
  [[nodiscard]] JoinedBody view(buf::ChargedBuffer& joined) const;
  // Gives the blocks back to the pool.
  void clear();

 private:
  buf::Pool* pool_;
  buf::BlockShare* share_;
  buf::Block* head_ = nullptr;
  buf::Block* tail_ = nullptr;
  std::size_t size_ = 0;
  std::size_t blocks_ = 0;
};

}  // namespace sluice::session
