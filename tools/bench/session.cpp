#include "session.hpp"

#include "sse_session.hpp"
#include "ws_session.hpp"

namespace sluice::bench {

std::unique_ptr<Session> make_session(ReaderContext& context, const SessionOptions& options) {
  if (options.proto == Proto::ws) return std::make_unique<WsSession>(context, options);
  return std::make_unique<SseSession>(context, options);
}

std::string proto_name(Proto proto) { return proto == Proto::ws ? "ws" : "sse"; }

std::string stream_path(Proto proto, std::string_view topic) {
  return std::string(proto == Proto::ws ? "/ws/" : "/sse/") + std::string(topic);
}

}  // namespace sluice::bench
