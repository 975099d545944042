// Owns: FrameRef, a counted reference to an immutable frame of bytes held in
// a chain of pool blocks, and FrameBuilder, which writes one.
//
// A published event is encoded once per wire format into one frame; every
// subscriber's queue then holds a FrameRef to the same blocks: no buffer is
// allocated per message and nothing is copied per subscriber, so fan-out
// costs a reference count, not memory. The blocks return to the pool
// when the last reference goes. A small frame may be packed with others
// into one shared block (buf/slab_writer.hpp): it reads the same, as a
// frame of one block, and gives its share of that block back instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "buf/pool.hpp"
#include "buf/sink.hpp"

namespace sluice::buf {

class SlabWriter;

class FrameRef {
 public:
  FrameRef() = default;
  FrameRef(const FrameRef& other) : head_(other.head_) { retain(); }
  FrameRef(FrameRef&& other) noexcept : head_(std::exchange(other.head_, nullptr)) {}
  FrameRef& operator=(const FrameRef& other) {
    if (this != &other) {
      other.retain();
      reset();
      head_ = other.head_;
    }
    return *this;
  }
  FrameRef& operator=(FrameRef&& other) noexcept {
    if (this != &other) {
      reset();
      head_ = std::exchange(other.head_, nullptr);
    }
    return *this;
  }
  ~FrameRef() { reset(); }

  // A handle on `counted`'s frame that takes no count of its own. Its
  // holder must know the frame outlives the handle by other means, and
  // gives it up with forget(), never with reset(), an assignment over it or
  // its destructor, each of which would give back a count it never took.
  // For a holder whose frames something else keeps alive: a counted copy
  // and its release cost two locked operations on the frame's header.
  [[nodiscard]] static FrameRef uncounted(const FrameRef& counted) {
    FrameRef ref;
    ref.head_ = counted.head_;
    return ref;
  }
  // Gives up a handle from uncounted(), leaving the count as it is.
  void forget() { head_ = nullptr; }

  // Adopts a finished chain whose first block has refs == 1.
  static FrameRef adopt(Block* head) {
    FrameRef ref;
    ref.head_ = head;
    return ref;
  }

  // Inline, as retain(): an event's references are taken and dropped per
  // event and per subscriber, most of them empty.
  void reset() {
    Block* head = std::exchange(head_, nullptr);
    // acq_rel: the thread that frees the blocks must see every write made
    // through other references before it recycles them.
    if (head != nullptr && head->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) release_last(head);
  }
  explicit operator bool() const { return head_ != nullptr; }
  [[nodiscard]] std::size_t size() const { return head_ ? head_->frame_size : 0; }
  [[nodiscard]] const Block* first_block() const { return head_; }
  [[nodiscard]] std::uint32_t use_count() const;

  // Copies up to `capacity` bytes starting at `offset` into `out`; returns
  // how many were copied. For tests and small control frames.
  std::size_t copy_to(char* out, std::size_t capacity, std::size_t offset = 0) const;

  // Appends `bytes` in place when this is the frame's only reference and
  // its last block has room for all of them (never for a packed frame: the
  // bytes after it are another frame's); returns false, changing nothing,
  // otherwise. A frame nobody else can see is not yet immutable:
  // small replies to pipelined requests share a block this way.
  [[nodiscard]] bool append_unshared(std::string_view bytes);

  // When the event this frame carries was published (steady-clock
  // nanoseconds), so that a flush can tell how long its oldest event
  // waited; 0 for a frame that carries none (a reply, a notice, a message
  // of the application's own).
  [[nodiscard]] std::int64_t published_ns() const { return head_ ? head_->published_ns : 0; }
  // Stamps the frame. Only while it is its maker's alone, before anyone
  // else can read it: a shared frame is immutable.
  void set_published_ns(std::int64_t ns) {
    if (head_ != nullptr) head_->published_ns = ns;
  }

  friend bool operator==(const FrameRef& a, const FrameRef& b) { return a.head_ == b.head_; }

 private:
  void retain() const {
    if (head_ != nullptr) head_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  // The last reference went: the blocks go back to their slab or the pool.
  static void release_last(Block* head);

  Block* head_ = nullptr;
};

// Writes a frame into pool blocks, block after block. Never allocates from
// the heap. If the pool refuses a block, the builder is failed: later appends
// are ignored and finish() returns an empty FrameRef (the blocks it had are
// released), so the caller checks once, at the end.
//
// Given a SlabWriter and the frame's size before a byte is written, a
// builder packs a small frame (SlabWriter::packs) into the writer's open
// slab, on the data lane; a larger one gets blocks of its own as above.
// Appending more than `size` bytes to a packed frame fails the builder.
class FrameBuilder final : public Sink {
 public:
  FrameBuilder(Pool& pool, Lane lane) : pool_(&pool), lane_(lane) {}
  FrameBuilder(Pool& pool, SlabWriter& slabs, std::size_t size);
  ~FrameBuilder();
  FrameBuilder(const FrameBuilder&) = delete;
  FrameBuilder& operator=(const FrameBuilder&) = delete;

  using Sink::append;
  bool append(const char* data, std::size_t n) override;

  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] std::size_t size() const { return size_; }

  // Hands the blocks to a FrameRef. A builder that wrote nothing returns a
  // frame of one empty block. The builder is empty afterwards.
  [[nodiscard]] FrameRef finish();

 private:
  bool grow();
  void abandon();
  bool append_packed(const char* data, std::size_t n);

  Pool* pool_;
  Lane lane_;
  SlabWriter* slabs_ = nullptr;  // set while the frame is being packed
  Block* packed_ = nullptr;      // where the packed frame goes (its header)
  std::size_t room_ = 0;         // bytes reserved for it
  Block* head_ = nullptr;
  Block* tail_ = nullptr;
  std::size_t size_ = 0;
  bool failed_ = false;
};

// Builds a frame holding `bytes`, or returns an empty FrameRef when the pool
// has no room for it in `lane`.
[[nodiscard]] FrameRef make_frame(Pool& pool, Lane lane, std::string_view bytes);

}  // namespace sluice::buf
