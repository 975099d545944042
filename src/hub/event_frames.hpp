// Owns: EventFrames, one event on its way to a loop's subscribers, in each
// wire format. A form the publisher built (the SSE form when the topic had
// an SSE subscriber, the WebSocket forms its subscribers used) is shared by
// every subscriber of every loop; any other form is built from the event's
// payload the first time a subscriber of this loop asks, then shared by
// every subscriber of the loop that speaks that form:
//
//   sse                 the Server-Sent Events record
//   ws_message          one WebSocket message holding the data: text when it
//                       is UTF-8, binary otherwise (GET /ws/{topic})
//   ws_envelope         the /ws envelope {"op":"event","topic",...,"data"}
// and each WebSocket form permessage-deflated, compressed once without
// context takeover so that every subscriber can share it.
//
// An empty FrameRef means the pool refused the blocks: the subscriber
// counts that event as dropped and says so.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "buf/frame.hpp"
#include "buf/slab_writer.hpp"
#include "hub/event_id.hpp"
#include "hub/hub_types.hpp"
#include "hub/publish_clock.hpp"
#include "hub/wire_form.hpp"
#include "proto/ws_deflate.hpp"

namespace sluice::hub {

// What an event's frames are built with, reused event after event so that
// building allocates only while buffers grow. Whoever builds owns one: each
// loop (its Hub), each Publisher, and the topic book for publishers that
// bring none. Its SlabWriter packs the small frames built with it side by
// side (one open slab each, given back when the scratch goes: the pool must
// outlive it).
struct FrameScratch {
  buf::SlabWriter slabs;
  // Made by the first deflated form built (EventFrames::build_ws): its
  // compressor's state is about 256 KiB, which a scratch that never builds
  // one (a Publisher of a topic nobody reads compressed) should not hold.
  std::optional<proto::ws::Deflater> deflater;
  std::string json;     // the /ws envelope
  std::string payload;  // the event's payload made contiguous
  const void* payload_of = nullptr;  // the EventFrames whose payload it holds
  PublishClock clock;                // a loop's or a Publisher's single publishes' stamps
};

// FrameScratch for publishers that are not loops (the application's
// threads calling Server::publish): one is lent per publish and taken back
// after, so there are as many as threads ever published at once. A few
// idle ones wait in slots taken and filled with one atomic operation each,
// so a publisher thread that publishes event after event takes no lock for
// its scratch; the rest wait in a list under a mutex.
class ScratchPool {
 public:
  class Lease {
   public:
    Lease(ScratchPool& pool, std::unique_ptr<FrameScratch> scratch) : pool_(pool), scratch_(std::move(scratch)) {}
    ~Lease() { pool_.give_back(std::move(scratch_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    FrameScratch& operator*() { return *scratch_; }

   private:
    ScratchPool& pool_;
    std::unique_ptr<FrameScratch> scratch_;
  };

  ScratchPool() = default;
  ~ScratchPool();
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  [[nodiscard]] Lease lend();

 private:
  static constexpr std::size_t kSlots = 4;

  void give_back(std::unique_ptr<FrameScratch> scratch);

  std::array<std::atomic<FrameScratch*>, kSlots> slots_{};  // each owns what it holds
  std::mutex mutex_;
  std::vector<std::unique_ptr<FrameScratch>> idle_;
};

class EventFrames {
 public:
  // `payload` is one byte of event-name length, the name, the data; when it
  // is empty, the event has no name and its prebuilt WebSocket message
  // carries the data (KeptEvent). All references must outlive this object.
  // `prebuilt` holds the kWsForms forms the publisher built (by
  // ws_index()) and must outlive this object too; empty ones are built here
  // on first use.
  //
  // Both constructors are inline: an out-of-line call takes the id as an
  // object just written to the stack and copies it with wider loads than
  // its fields were stored with, and each such load waits for the stores
  // to land, once per event on the publisher and on a loop that makes them.
  EventFrames(buf::Pool& pool, FrameScratch& scratch, std::string_view topic, EventIdText id,
              const buf::FrameRef& sse, const buf::FrameRef& payload, const buf::FrameRef* prebuilt = nullptr)
      : pool_(pool), scratch_(scratch), topic_(topic), id_(id), sse_(sse), payload_(payload), prebuilt_(prebuilt) {}
  // The publisher's: every form is built from `message` itself, not read
  // back out of its payload frame. `message` must outlive this object.
  EventFrames(buf::Pool& pool, FrameScratch& scratch, std::string_view topic, EventIdText id,
              const Message& message, const buf::FrameRef& payload)
      : pool_(pool),
        scratch_(scratch),
        topic_(topic),
        id_(id),
        sse_(kNoFrame),
        payload_(payload),
        prebuilt_(nullptr),
        loaded_(true),
        from_message_(true),
        event_(message.event),
        data_(message.data) {}

  [[nodiscard]] const buf::FrameRef& sse() { return form(WireForm::sse); }
  // A form the publisher built is handed out as it is, not copied in (a
  // reference taken per event per form is two atomic operations for
  // nothing), and found inline: it is what a subscriber that takes events
  // one by one asks for nearly always.
  [[nodiscard]] const buf::FrameRef& form(WireForm form) {
    if (form != WireForm::sse && prebuilt_ != nullptr && prebuilt_[ws_index(form)]) return prebuilt_[ws_index(form)];
    return kept_or_built(form);
  }
  // The form for keeping: one built here is handed over, not shared, so
  // the publisher's KeptEvent gets it without a reference taken and one
  // dropped (two locked operations an event). Each form is taken at most
  // once and not asked of form() afterwards; no other form is built from
  // it (the publisher builds each from its message).
  [[nodiscard]] buf::FrameRef take(WireForm form);

 private:
  static inline const buf::FrameRef kNoFrame{};  // the publisher's SSE form nobody built

  // A form whose build failed is not tried again for this event.
  struct Slot {
    buf::FrameRef frame;
    bool tried = false;
  };

  [[nodiscard]] const buf::FrameRef& kept_or_built(WireForm form);
  // Where a form built here is kept.
  [[nodiscard]] Slot& built_slot(WireForm form);
  const buf::FrameRef& sse_form();
  const buf::FrameRef& ws_message(bool deflated);
  const buf::FrameRef& ws_envelope(bool deflated);
  void load_payload();
  // The frame the payload is read from, and the event's publish time.
  [[nodiscard]] const buf::FrameRef& payload_source() const;
  [[nodiscard]] bool utf8();
  buf::FrameRef build_ws(std::string_view payload, bool text, bool deflated);
  std::string_view json_envelope();

  buf::Pool& pool_;
  FrameScratch& scratch_;
  std::string_view topic_;
  EventIdText id_;
  const buf::FrameRef& sse_;
  const buf::FrameRef& payload_;
  const buf::FrameRef* prebuilt_;
  bool loaded_ = false;
  bool from_message_ = false;  // event_ and data_ view the publisher's message
  std::int8_t utf8_ = -1;  // whether the data is UTF-8, once asked; -1 before
  std::string_view event_;
  std::string_view data_;
  Slot sse_built_;  // when the publisher built none (no SSE subscriber then)
  Slot ws_[2];
  Slot envelope_[2];
};

}  // namespace sluice::hub
