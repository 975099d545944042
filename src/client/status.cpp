#include "sluice/client/status.hpp"

namespace sluice::client {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::none: return "none";
    case ErrorKind::bad_url: return "bad_url";
    case ErrorKind::refused: return "refused";
    case ErrorKind::connect_failed: return "connect_failed";
    case ErrorKind::http_status: return "http_status";
    case ErrorKind::bad_response: return "bad_response";
    case ErrorKind::protocol: return "protocol";
    case ErrorKind::closed: return "closed";
    case ErrorKind::idle_timeout: return "idle_timeout";
    case ErrorKind::io_error: return "io_error";
    case ErrorKind::aborted: return "aborted";
    case ErrorKind::resources: return "resources";
    case ErrorKind::tls: return "tls";
    case ErrorKind::bad_token: return "bad_token";
  }
  return "unknown";
}

const char* state_name(ClientState state) {
  switch (state) {
    case ClientState::connecting: return "connecting";
    case ClientState::open: return "open";
    case ClientState::waiting: return "waiting";
    case ClientState::failed: return "failed";
    case ClientState::stopped: return "stopped";
  }
  return "unknown";
}

}  // namespace sluice::client
