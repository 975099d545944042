#include "sub_command.hpp"

#include <cstdio>
#include <vector>

#include "ca_file.hpp"
#include "event_line.hpp"
#include "interrupt.hpp"
#include "token_file.hpp"
#include "sluice/client/sse_client.hpp"
#include "sluice/client/url.hpp"
#include "sluice/client/ws_client.hpp"

namespace sluice::cli {

namespace {

using namespace std::chrono_literals;
using client::ClientError;
using client::ErrorKind;
using client::Event;
using client::NextStatus;

// How often the main thread looks at the Ctrl-C flag while no event comes.
constexpr auto kInterruptPoll = 200ms;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "sluice: %s\n", message.c_str());
  return 2;
}

// One line on stderr per connection opened or lost, so that a person (or a
// test) sees when the stream is live and why it is not.
void report_status(const client::StatusReport& report) {
  if (report.state == client::ClientState::open) std::fprintf(stderr, "sluice: connected\n");
  if (report.state != client::ClientState::waiting || report.error == nullptr) return;
  std::fprintf(stderr, "sluice: %s; reconnecting in %lld ms\n", report.error->message.c_str(),
               static_cast<long long>(report.retry_in.count()));
}

client::ClientOptions client_options(const SubOptions& options) {
  client::ClientOptions o;
  if (!options.token_file.empty()) o.token = [path = options.token_file] { return read_token_file(path); };
  o.delivery = options.latest ? client::Delivery::latest : client::Delivery::queue;
  o.reconnect.max_attempts = options.max_attempts;
  o.max_event_bytes = options.max_event_bytes;
  o.on_status = report_status;
  o.tls = {.ca_file = options.ca_file, .insecure = options.insecure};
  o.http2 = options.http1                   ? client::Http2::off
            : options.http2_prior_knowledge ? client::Http2::prior_knowledge
                                            : client::Http2::alpn;
  return o;
}

// The topics a ws:// URL names: /ws/{topic} and every ?topic=.
std::vector<std::string> ws_topics(const client::Url& url) {
  std::vector<std::string> topics;
  const std::string_view path = url.path();
  if (path.starts_with("/ws/")) topics.emplace_back(path.substr(4));
  std::string_view query = url.query();
  while (!query.empty()) {
    const std::string_view pair = query.substr(0, query.find('&'));
    if (pair.starts_with("topic=")) topics.emplace_back(pair.substr(6));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
  }
  return topics;
}

// Prints events until Ctrl-C or the end; returns the exit status.
template <class Client>
int print_events(Client& client, bool json, bool with_topic) {
  Event event;
  std::string line;
  while (!interrupted()) {
    const NextStatus status = client.next(event, kInterruptPoll);
    if (status == NextStatus::ended) break;
    if (status == NextStatus::timeout) continue;
    if (event.kind == client::EventKind::ack && !event.ok) {
      std::fprintf(stderr, "sluice: %s %s refused: %s\n", escaped(event.type).c_str(), escaped(event.topic).c_str(),
                   escaped(event.data).c_str());
      return 1;
    }
    if (event.kind == client::EventKind::ack) continue;
    json ? format_json(event, line) : format_plain(event, with_topic, line);
    line.push_back('\n');
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size() || std::fflush(stdout) != 0) return 1;
  }
  client.stop();
  if (interrupted() || client.state() != client::ClientState::failed) return 0;
  std::fprintf(stderr, "sluice: %s\n", client.error().message.c_str());
  return 1;
}

// An SSE event does not say its topic: a stream of several prints as one of
// one topic does.
int run_sse(const SubOptions& options) {
  client::SseClient client(client_options(options));
  // An SSE stream asks for its policy in its query.
  std::string url = options.url;
  if (!options.policy.empty()) url += (url.find('?') == std::string::npos ? "?policy=" : "&policy=") + options.policy;
  ClientError started;
  {
    const SignalsBlocked blocked;  // the client's thread inherits the mask
    started = client.start(url, options.last_id);
  }
  if (started.kind != ErrorKind::none) return usage_error(started.message);
  return print_events(client, options.json, false);
}

int run_ws(const SubOptions& options, const client::Url& url) {
  const std::vector<std::string> topics = ws_topics(url);
  if (topics.empty()) return usage_error("name a topic: ws://HOST:PORT/ws/TOPIC or ws://HOST:PORT/ws?topic=T");
  client::WsClient client(client_options(options));
  for (const std::string& topic : topics) {
    const client::Submit s = client.subscribe(topic, {.since = options.last_id, .policy = options.policy});
    if (s.status != client::SubmitStatus::queued) return usage_error("cannot subscribe to '" + topic + "'");
  }
  ClientError started;
  {
    const SignalsBlocked blocked;
    started = client.start((url.tls ? "wss://" : "ws://") + url.authority() + "/ws");
  }
  if (started.kind != ErrorKind::none) return usage_error(started.message);
  return print_events(client, options.json, topics.size() > 1);
}

}  // namespace

int run_sub(const SubOptions& options) {
  client::Url url;
  std::string why;
  if (!client::parse_url(options.url, url, why)) return usage_error(why);
  if (!options.token_file.empty()) {
    if (const auto problem = token_file_problem(options.token_file)) return usage_error("--token-file: " + *problem);
  }
  if (const auto problem = ca_file_problem(options.ca_file)) return usage_error("--cacert: " + *problem);
  return url.scheme == client::Scheme::ws ? run_ws(options, url) : run_sse(options);
}

}  // namespace sluice::cli
