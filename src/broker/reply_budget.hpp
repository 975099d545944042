// Owns: ReplyBudget, the bound on what one of Redis's answers may cost this
// process, and the reply builders that enforce it.
//
// hiredis builds each answer as a tree of redisReply as the bytes arrive,
// as large as the answer says: an array header announcing a billion
// elements is a billion-pointer allocation, a bulk string announcing a
// gigabyte is buffered until it is all there. The builders installed here
// build the same tree (freed by hiredis's own freeReplyObject) but charge
// each answer's objects and strings to a budget, and refuse past it, which
// hiredis reports as a failed read: the connection is closed and the
// requests on it are answered link_lost, never a process grown without
// bound. The bytes still waiting for the rest of a bulk string are checked
// against the same budget after every read (input_over_budget).
#pragma once

#include <hiredis/hiredis.h>

#include <cstddef>

namespace sluice::broker {

struct ReplyBudget {
  std::size_t max_bytes = 64 << 20;  // broker.max_reply_bytes
  std::size_t used = 0;              // by the answer being built
  bool exceeded = false;             // an answer was refused for going past max_bytes
};

// Makes `reader` build its answers within `budget`, which must outlive it.
void bound_replies(redisReader* reader, ReplyBudget& budget);

// Whether the unread part of the reader's buffer is already past the budget
// (a bulk string larger than it is on its way). Sets budget.exceeded.
[[nodiscard]] bool input_over_budget(const redisReader* reader, ReplyBudget& budget);

}  // namespace sluice::broker
