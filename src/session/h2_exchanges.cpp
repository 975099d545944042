#include "session/h2_exchanges.hpp"


#include "session/h2_held_response.hpp"
#include "session/sse_stream.hpp"
#include "session/ws_stream.hpp"

namespace sluice::session {

H2Exchange::H2Exchange(buf::Pool& pool, buf::BlockShare* bodies) : body(pool, bodies) {}

H2Exchange::~H2Exchange() = default;

// The stream goes before its outlet, which it writes to.
void H2Exchange::reset() {
  id = 0;
  sse.reset();
  ws.reset();
  ws_ended = false;
  response.reset();
  answered = 0;
  peer.reset();
  outlet.reset();
  unread.clear();
  waiting.reset();
  posting = false;
  awaiting_broker = false;
  broker_ticket = 0;
  posted_bytes = 0;
  topic.clear();
  event.clear();
  key.clear();
  allow_origin.clear();
  logged_target.clear();
  logged_agent.clear();
  body.clear();
}

// The table starts small and doubles while the connection's streams grow
// towards the limit: a connection that keeps a few streams open holds a
// few entries, not the limit's worth.
H2Exchanges::H2Exchanges(std::size_t capacity, buf::Pool& pool, buf::BlockShare* bodies)
    : capacity_(capacity), pool_(pool), bodies_(bodies), table_(kFirstTableSize) {}

H2Exchanges::~H2Exchanges() = default;

// Client stream ids are odd and rising: halved, they fill the table's
// entries in order.
std::size_t H2Exchanges::home(std::int32_t id) const {
  return (static_cast<std::uint32_t>(id) >> 1) & (table_.size() - 1);
}

H2Exchange* H2Exchanges::open(std::int32_t id) {
  if (id <= 0 || find(id) != nullptr) return nullptr;
  std::uint32_t slot = 0;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else if (slots_.size() < capacity_) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(std::make_unique<H2Exchange>(pool_, bodies_));
  } else {
    return nullptr;
  }
  if ((open_ + 1) * 2 > table_.size()) grow_table();
  insert({id, slot});
  slots_[slot]->id = id;
  ++open_;
  return slots_[slot].get();
}

void H2Exchanges::insert(Entry entry) {
  std::size_t at = home(entry.id);
  while (table_[at].id != 0) at = (at + 1) & (table_.size() - 1);
  table_[at] = entry;
}

void H2Exchanges::grow_table() {
  std::vector<Entry> old(table_.size() * 2);
  old.swap(table_);
  for (const Entry& entry : old) {
    if (entry.id != 0) insert(entry);
  }
}

std::size_t H2Exchanges::position(std::int32_t id) const {
  if (id <= 0) return table_.size();
  for (std::size_t at = home(id); table_[at].id != 0; at = (at + 1) & (table_.size() - 1)) {
    if (table_[at].id == id) return at;
  }
  return table_.size();
}

H2Exchange* H2Exchanges::find(std::int32_t id) const {
  const std::size_t at = position(id);
  return at == table_.size() ? nullptr : slots_[table_[at].slot].get();
}

// Linear probing's deletion: entries after the hole that would no longer
// be reached from their home move back into it.
void H2Exchanges::erase(std::size_t hole) {
  const std::size_t mask = table_.size() - 1;
  for (std::size_t next = (hole + 1) & mask; table_[next].id != 0; next = (next + 1) & mask) {
    const std::size_t wanted = home(table_[next].id);
    // Moves when `wanted` is not in (hole, next], cyclically.
    const bool reachable = hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next);
    if (!reachable) {
      table_[hole] = table_[next];
      hole = next;
    }
  }
  table_[hole] = {};
}

void H2Exchanges::retire(H2Exchange& exchange) {
  const std::size_t at = position(exchange.id);
  if (at == table_.size()) return;
  const std::uint32_t slot = table_[at].slot;
  erase(at);
  --open_;
  if (exchange.holds_stream()) {
    exchange.id = 0;
    retired_.push_back(slot);
  } else {
    exchange.reset();
    free_.push_back(slot);
  }
}

void H2Exchanges::release_retired() {
  for (const std::uint32_t slot : retired_) {
    slots_[slot]->reset();
    free_.push_back(slot);
  }
  retired_.clear();
}

void H2Exchanges::retire_all() {
  for (const auto& slot : slots_) {
    if (slot->id != 0) retire(*slot);
  }
}

}  // namespace sluice::session
