#include "auth/callback_client.hpp"

#include <cstring>

namespace sluice::auth {

CallbackClient::CallbackClient(io::Loop& loop, CallbackTarget target, CallbackConfig config)
    : loop_(loop),
      target_(std::move(target)),
      config_(std::move(config)),
      cache_(config_.cache_entries, config_.cache_ttl) {}

CallbackClient::~CallbackClient() {
  for (auto& [ticket, pending] : pending_) loop_.cancel(pending.timer);
  loop_.forget(this);
}

CallbackClient::Asked CallbackClient::ask(const CallbackQuestion& question, Done done) {
  std::string request = callback_request(target_, question, config_.forward_headers);
  const CallbackCache::Key key = cache_.key_of(request);
  if (const Decision* cached = cache_.find(key, loop_.now())) return {*cached, 0};
  if (pending_.size() >= config_.max_inflight) {
    return {Decision::callback_failed("the authorization callback is busy (auth.callback_max_inflight " +
                                          std::to_string(config_.max_inflight) + ")",
                                      1),
            0};
  }
  const Ticket ticket = next_ticket_++;
  ExchangeOwner& owner = *this;
  auto exchange = std::make_unique<CallbackExchange>(loop_, owner, ticket, std::move(request), config_.max_reply_head);
  if (const int rc = exchange->start(reinterpret_cast<const sockaddr*>(&target_.address), target_.address_size);
      rc != 0) {
    return {Decision::callback_failed(std::string("cannot reach the authorization callback: ") + std::strerror(-rc), 1),
            0};
  }
  const io::Loop::TimerId timer = loop_.every(config_.timeout, [this, ticket] { on_timeout(ticket); });
  pending_.emplace(ticket, Pending{std::move(exchange), std::move(done), key, timer});
  return {std::nullopt, ticket};
}

void CallbackClient::cancel(Ticket ticket) { (void)retire(ticket); }

std::optional<CallbackClient::Pending> CallbackClient::retire(Ticket ticket) {
  const auto it = pending_.find(ticket);
  if (it == pending_.end()) return std::nullopt;
  Pending pending = std::move(it->second);
  pending_.erase(it);
  loop_.cancel(pending.timer);
  pending.exchange->close();
  retired_.push_back(std::move(pending.exchange));
  loop_.defer(this);
  return pending;
}

void CallbackClient::exchange_done(CallbackExchange& exchange, Decision decision) {
  std::optional<Pending> pending = retire(exchange.ticket());
  if (!pending) return;
  if (cacheable(decision)) cache_.store(pending->key, decision, loop_.now());
  pending->done(decision);
}

void CallbackClient::on_timeout(Ticket ticket) {
  std::optional<Pending> pending = retire(ticket);
  if (!pending) return;
  pending->done(
      Decision::callback_failed("the authorization callback did not answer within auth.callback_timeout_ms (" +
                                    std::to_string(config_.timeout.count()) + ")",
                                1));
}

void CallbackClient::run_deferred() { retired_.clear(); }

}  // namespace sluice::auth
