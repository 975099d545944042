// Owns: what every stream does first when queued data holds the pool and its
// reader has been behind long enough to be shed (Phase::shed_behind):
// what it queued and has not started goes back to the pool at once, and
// the cut-off is counted. A reader that left it waiting would otherwise
// hold it for the whole linger after the cut-off, and it resumes from its
// last id all the same.
#pragma once

#include <cstdint>

#include "conn/outlet.hpp"

namespace sluice::session {

class LoopServices;

// True when the stream behind `outlet` is to be cut off now: it has not
// ended and its reader has been behind for at least `looks` looks in a
// row. Its queued data that has not started on the wire is released then.
bool let_go_if_behind(conn::Outlet& outlet, LoopServices& services, std::uint32_t looks);

}  // namespace sluice::session
