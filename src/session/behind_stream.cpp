#include "session/behind_stream.hpp"

#include "session/services.hpp"

namespace sluice::session {

bool let_go_if_behind(conn::Outlet& outlet, LoopServices& services, std::uint32_t looks) {
  if (outlet.ended() || outlet.queue().looks_behind() < looks) return false;
  (void)outlet.queue().drop_pending_data();
  ++services.counters().shed;
  services.metrics().streams_shed.add();
  return true;
}

}  // namespace sluice::session
