#include "conn/gate_checks.hpp"

#include "conn/latency_gate.hpp"

namespace sluice::conn {

namespace {
// How long the timer outlives the last held gate: a reader held again soon
// after does not cost a new timer (which allocates).
constexpr std::chrono::seconds kTimerLinger{1};
constexpr std::size_t kInitialItems = 64;
}  // namespace

GateChecks::GateChecks(io::Loop& loop) : loop_(loop) { items_.reserve(kInitialItems); }

GateChecks::~GateChecks() {
  for (Item& item : items_) item.gate->check_slot_ = LatencyGate::kNoSlot;
  if (timer_ != 0) loop_.cancel(timer_);
}

void GateChecks::schedule(LatencyGate& gate, Clock::time_point due) {
  last_busy_ = loop_.now();
  if (gate.check_slot_ != LatencyGate::kNoSlot) {
    Item& item = items_[gate.check_slot_];
    if (due < item.due) item.due = due;
    return;
  }
  gate.check_slot_ = items_.size();
  items_.push_back({&gate, due});
  if (timer_ == 0) timer_ = loop_.every(kPeriod, [this] { run(loop_.now()); });
}

void GateChecks::cancel(LatencyGate& gate) {
  if (gate.check_slot_ != LatencyGate::kNoSlot) remove(gate.check_slot_);
}

void GateChecks::remove(std::size_t index) {
  items_[index].gate->check_slot_ = LatencyGate::kNoSlot;
  if (index + 1 != items_.size()) {
    items_[index] = items_.back();
    items_[index].gate->check_slot_ = index;
  }
  items_.pop_back();
}

void GateChecks::run(Clock::time_point now) {
  std::size_t taken = 0;
  for (std::size_t i = 0; i < items_.size() && taken < kMaxPerTick;) {
    if (items_[i].due > now) {
      ++i;
      continue;
    }
    // The flush asks again if its gate still holds.
    loop_.defer(&items_[i].gate->flusher());
    remove(i);
    ++taken;
  }
  if (!items_.empty()) {
    last_busy_ = now;
  } else if (now - last_busy_ > kTimerLinger) {
    loop_.cancel(timer_);
    timer_ = 0;
  }
}

}  // namespace sluice::conn
