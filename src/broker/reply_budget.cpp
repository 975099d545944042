#include "broker/reply_budget.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace sluice::broker {

namespace {

ReplyBudget& budget_of(const redisReadTask* task) { return *static_cast<ReplyBudget*>(task->privdata); }

// Charges `bytes` to the answer the task belongs to; a task without a
// parent starts a new answer.
bool charge(const redisReadTask* task, std::size_t bytes) {
  ReplyBudget& budget = budget_of(task);
  if (task->parent == nullptr) budget.used = 0;
  if (bytes > budget.max_bytes - std::min(budget.used, budget.max_bytes)) {
    budget.exceeded = true;
    return false;
  }
  budget.used += bytes;
  return true;
}

// Hangs `r` into its parent array, whose slot the reader names.
void *adopt(const redisReadTask* task, redisReply* r) {
  if (task->parent != nullptr) {
    auto* parent = static_cast<redisReply*>(task->parent->obj);
    if (parent == nullptr || parent->type != REDIS_REPLY_ARRAY || task->idx < 0 ||
        static_cast<std::size_t>(task->idx) >= parent->elements) {
      freeReplyObject(r);
      return nullptr;
    }
    parent->element[task->idx] = r;
  }
  return r;
}

redisReply* make(const redisReadTask* task, int type, std::size_t extra) {
  if (!charge(task, sizeof(redisReply) + extra)) return nullptr;
  auto* r = static_cast<redisReply*>(std::calloc(1, sizeof(redisReply)));
  if (r != nullptr) r->type = type;
  return r;
}

void* create_string(const redisReadTask* task, char* str, std::size_t len) {
  redisReply* r = make(task, task->type, len + 1);
  if (r == nullptr) return nullptr;
  r->str = static_cast<char*>(std::malloc(len + 1));
  if (r->str == nullptr) {
    freeReplyObject(r);
    return nullptr;
  }
  std::memcpy(r->str, str, len);
  r->str[len] = '\0';
  r->len = len;
  return adopt(task, r);
}

void* create_array(const redisReadTask* task, int elements) {
  const std::size_t count = elements > 0 ? static_cast<std::size_t>(elements) : 0;
  redisReply* r = make(task, REDIS_REPLY_ARRAY, count * sizeof(redisReply*));
  if (r == nullptr) return nullptr;
  if (count > 0) {
    r->element = static_cast<redisReply**>(std::calloc(count, sizeof(redisReply*)));
    if (r->element == nullptr) {
      freeReplyObject(r);
      return nullptr;
    }
  }
  r->elements = count;
  return adopt(task, r);
}

void* create_integer(const redisReadTask* task, long long value) {
  redisReply* r = make(task, REDIS_REPLY_INTEGER, 0);
  if (r == nullptr) return nullptr;
  r->integer = value;
  return adopt(task, r);
}

void* create_nil(const redisReadTask* task) {
  redisReply* r = make(task, REDIS_REPLY_NIL, 0);
  return r == nullptr ? nullptr : adopt(task, r);
}

redisReplyObjectFunctions bounded_functions = {create_string, create_array, create_integer, create_nil,
                                               freeReplyObject};

}  // namespace

void bound_replies(redisReader* reader, ReplyBudget& budget) {
  reader->fn = &bounded_functions;
  reader->privdata = &budget;
}

bool input_over_budget(const redisReader* reader, ReplyBudget& budget) {
  if (reader->len - reader->pos <= budget.max_bytes) return false;
  budget.exceeded = true;
  return true;
}

}  // namespace sluice::broker
