// Owns: CallbackExchange, one question to the authorization callback on a
// connection of its own: a non-blocking connect, the request written as the
// socket takes it, the reply read until its head is whole, then one
// Decision handed to its owner. Every step waits for the loop to say the
// socket is ready, so a slow or silent callback holds up nothing but the
// client that asked; the owner's timer bounds even that.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

#include "auth/decision.hpp"
#include "io/loop.hpp"

namespace sluice::auth {

class CallbackExchange;

class ExchangeOwner {
 public:
  // Called once per exchange, from inside its on_ready(): the exchange must
  // not be destroyed before that returns.
  virtual void exchange_done(CallbackExchange& exchange, Decision decision) = 0;

 protected:
  ~ExchangeOwner() = default;
};

class CallbackExchange final : public io::Handler {
 public:
  CallbackExchange(io::Loop& loop, ExchangeOwner& owner, std::uint64_t ticket, std::string request,
                   std::size_t max_head);
  ~CallbackExchange();  // stops watching and closes the socket
  CallbackExchange(const CallbackExchange&) = delete;
  CallbackExchange& operator=(const CallbackExchange&) = delete;

  // Opens the socket and starts connecting. Returns 0, or -errno when the
  // connection failed at once (nothing is then watched).
  [[nodiscard]] int start(const sockaddr* address, socklen_t size);

  // Stops watching and closes the socket; no answer will be given.
  void close();

  void on_ready(std::uint32_t events) override;

  [[nodiscard]] std::uint64_t ticket() const { return ticket_; }
  [[nodiscard]] const std::string& request() const { return request_; }

 private:
  enum class Step : std::uint8_t { connecting, writing, reading, done };

  void finish(Decision decision);
  void on_connected();
  void write_some();
  void read_some();
  void check_head(bool at_eof);

  io::Loop& loop_;
  ExchangeOwner& owner_;
  std::uint64_t ticket_;
  std::string request_;
  std::size_t written_ = 0;
  std::string reply_;
  std::size_t max_head_;
  int fd_ = -1;
  Step step_ = Step::connecting;
};

}  // namespace sluice::auth
