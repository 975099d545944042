// The names follow Prometheus's conventions: a `sluice_` prefix, base units
// (seconds, bytes) in the name, `_total` on counters, one label per
// dimension and every known label value present from the start (a series
// that appears only on its first increment hides the rate of that first
// increment from rate()).
#include "metrics/scrape.hpp"

#include <span>

#include "metrics/exposition.hpp"

namespace sluice::metrics {

namespace {

using Values = std::span<const std::string_view>;

// A family with one sample per label value; `get(slot, i)` reads value i.
template <class Get>
void labelled(Exposition& out, const Registry& registry, std::string_view name, Type type, std::string_view help,
              std::string_view label, Values values, Get get) {
  out.family(name, type, help);
  for (std::size_t i = 0; i < values.size(); ++i) {
    out.sample(name, {{label, values[i]}}, registry.sum([&](const LoopMetrics& m) { return get(m, i); }));
  }
}

template <class Get>
void single(Exposition& out, const Registry& registry, std::string_view name, Type type, std::string_view help,
            Get get) {
  out.family(name, type, help);
  out.sample(name, {}, registry.sum(get));
}

void server_value(Exposition& out, std::string_view name, Type type, std::string_view help, std::uint64_t value) {
  out.family(name, type, help);
  out.sample(name, {}, value);
}

void write_connections(Exposition& out, const Registry& r) {
  labelled(out, r, "sluice_connections", Type::gauge, "Open connections, by what they carry now.", "transport",
           kTransportLabels, [](const LoopMetrics& m, std::size_t i) { return m.connections[i].value(); });
  single(out, r, "sluice_connections_accepted_total", Type::counter, "Connections accepted.",
         [](const LoopMetrics& m) { return m.connections_accepted.value(); });
  single(out, r, "sluice_connections_refused_total", Type::counter,
         "Connections refused with 503 because max_connections were open.",
         [](const LoopMetrics& m) { return m.connections_refused.value(); });
  single(out, r, "sluice_connections_closed_for_memory_total", Type::counter,
         "Connections closed because their memory account could not hold their TLS record buffers.",
         [](const LoopMetrics& m) { return m.memory_closes.value(); });
  single(out, r, "sluice_subscribers", Type::gauge,
         "Topic subscriptions of open streams (a stream following three topics counts three).",
         [](const LoopMetrics& m) { return m.subscribers.value(); });
}

void write_events(Exposition& out, const Registry& r) {
  single(out, r, "sluice_events_published_total", Type::counter, "Events accepted and given an id.",
         [](const LoopMetrics& m) { return m.events_published.value(); });
  labelled(out, r, "sluice_events_delivered_total", Type::counter, "Events handed to a subscriber's send queue.",
           "transport", Values(kTransportLabels).first(kStreamTransports),
           [](const LoopMetrics& m, std::size_t i) { return m.events_delivered[i].value(); });
  labelled(out, r, "sluice_events_dropped_total", Type::counter,
           "Events a slow subscriber's policy dropped (each one told to the subscriber).", "policy", kPolicyLabels,
           [](const LoopMetrics& m, std::size_t i) { return m.events_dropped[i].value(); });
  single(out, r, "sluice_events_conflated_total", Type::counter,
         "Pending events replaced by a newer one of the same key under the latest policy.",
         [](const LoopMetrics& m) { return m.events_conflated.value(); });
  labelled(out, r, "sluice_latest_streams_loosely_bound_total", Type::counter,
           "Streams under the latest policy whose frames are not held to policy.latest_window_frames: the kernel "
           "tells nothing of the reader (no_kernel_facts), or the reader's window moves in steps larger than the "
           "frames and the stream cannot ask the reader what it read (window_steps: SSE over HTTP/1.1).",
           "why", kLooseBoundLabels,
           [](const LoopMetrics& m, std::size_t i) { return m.latest_loose[i].value(); });
  single(out, r, "sluice_latest_padding_bytes_total", Type::counter,
         "Bytes of padding (SSE comments, WebSocket pongs) queued to readers under the latest policy whose window "
         "stood still while frames were held, to show whether their buffer had narrowed.",
         [](const LoopMetrics& m) { return m.latest_padding_bytes.value(); });
  labelled(out, r, "sluice_slow_consumer_cutoffs_total", Type::counter,
           "Subscribers cut off because their send budget was spent.", "policy", kPolicyLabels,
           [](const LoopMetrics& m, std::size_t i) { return m.slow_consumer_cutoffs[i].value(); });
  single(out, r, "sluice_streams_shed_total", Type::counter,
         "Streams cut off while queued data held the pool, their reader having taken no whole frame, or "
         "never caught up, for pool.shed_after_ms.",
         [](const LoopMetrics& m) { return m.streams_shed.value(); });
  labelled(out, r, "sluice_publish_refusals_total", Type::counter, "Publishes refused with 503, by reason.",
           "reason", kRefusalLabels,
           [](const LoopMetrics& m, std::size_t i) { return m.publish_refusals[i].value(); });
  single(out, r, "sluice_publishes_held_total", Type::counter,
         "WebSocket publisher messages held until the subscribers or the pool had room.",
         [](const LoopMetrics& m) { return m.publishes_held.value(); });
  single(out, r, "sluice_protocol_errors_total", Type::counter, "WebSockets closed with 1002, 1007 or 1009.",
         [](const LoopMetrics& m) { return m.protocol_errors.value(); });
  single(out, r, "sluice_sends_to_closed_total", Type::counter,
         "Frames sent to a connection that had already closed.",
         [](const LoopMetrics& m) { return m.sends_to_closed.value(); });
}

void write_broker(Exposition& out, const Registry& r) {
  single(out, r, "sluice_broker_loops_cut_off", Type::gauge,
         "Loops that cannot use one of their Redis instances now (unreachable, or listed at another index of "
         "broker.url than the other nodes'); their publishes are refused.",
         [](const LoopMetrics& m) { return m.broker_unusable.value(); });
  single(out, r, "sluice_broker_link_failures_total", Type::counter,
         "Connections to Redis that could not be made or were lost.",
         [](const LoopMetrics& m) { return m.broker_link_failures.value(); });
  single(out, r, "sluice_broker_unusable_entries_total", Type::counter,
         "Stream entries this node could not use (no data field, too many fields, data over its largest event), "
         "passed over and told to subscribers as lost.",
         [](const LoopMetrics& m) { return m.broker_unusable_entries.value(); });
}

void write_tokens(Exposition& out, const Registry& r) {
  labelled(out, r, "sluice_tokens_total", Type::counter,
           "Request tokens the JWT authorizer judged: verified (signature and claims checked, accepted), reused "
           "(the token the connection's last request proved, not checked again), refused.",
           "outcome", kTokenOutcomeLabels, [](const LoopMetrics& m, std::size_t i) { return m.tokens[i].value(); });
}

template <const auto& Bounds>
void write_histogram(Exposition& out, const Registry& r, std::string_view name, std::string_view help,
                     Histogram<Bounds> LoopMetrics::*member, double divisor = 1) {
  const HistogramTotals<Bounds> totals = r.sum(member);
  out.family(name, Type::histogram, help);
  out.histogram(name, {}, Bounds, totals.buckets, totals.sum, divisor);
}

void write_flushes(Exposition& out, const Registry& r) {
  write_histogram(out, r, "sluice_writev_events", "Data frames carried by one writev.", &LoopMetrics::writev_events);
  write_histogram(out, r, "sluice_event_age_at_flush_seconds",
                  "Age of the oldest event a write carried, from its publish to the writev.",
                  &LoopMetrics::event_age_at_flush_us, 1e6);
  write_histogram(out, r, "sluice_queue_depth_frames", "Data frames waiting in a connection's queue when it flushed.",
                  &LoopMetrics::queue_depth);
}

void write_server(Exposition& out, const Registry& r, const ServerGauges& s) {
  out.family("sluice_build_info", Type::gauge, "Always 1; the version is a label.");
  out.sample("sluice_build_info", {{"version", s.version}}, 1);
  server_value(out, "sluice_loops", Type::gauge, "Event loops (one thread each).", r.loops());
  server_value(out, "sluice_topics", Type::gauge, "Topics that exist.", s.topics);
  server_value(out, "sluice_topics_limit", Type::gauge, "Topics allowed at most (topics.max).", s.topics_limit);
  server_value(out, "sluice_connections_limit", Type::gauge, "Open connections allowed at most (max_connections).",
               s.connections_limit);
  server_value(out, "sluice_pool_blocks", Type::gauge, "Blocks in the payload pool.", s.pool_blocks);
  server_value(out, "sluice_pool_block_size_bytes", Type::gauge, "Payload bytes per pool block.", s.pool_block_size);
  server_value(out, "sluice_pool_reserve_blocks", Type::gauge, "Pool blocks only control frames may take.",
               s.pool_reserve);
  server_value(out, "sluice_pool_blocks_in_use", Type::gauge, "Pool blocks holding queued or kept bytes.",
               s.pool_blocks - s.pool_free_blocks);
  server_value(out, "sluice_pool_min_free_blocks", Type::gauge, "Fewest free pool blocks seen since start.",
               s.pool_min_free_blocks);
  out.family("sluice_pool_refusals_total", Type::counter,
             "Pool blocks refused: data past the reserve (also when kept history then gave way), control with the pool empty.");
  out.sample("sluice_pool_refusals_total", {{"lane", "data"}}, s.pool_data_refusals);
  out.sample("sluice_pool_refusals_total", {{"lane", "control"}}, s.pool_control_refusals);
  server_value(out, "sluice_connection_memory_bytes", Type::gauge,
               "Bytes connections' buffers outside the pool hold past their resting size (input, messages and "
               "bodies being joined).",
               s.memory_charged);
  server_value(out, "sluice_connection_memory_limit_bytes", Type::gauge,
               "What those buffers may hold together (limits.server_bytes).", s.memory_limit);
  server_value(out, "sluice_connection_memory_reserve_bytes", Type::gauge,
               "The part of that limit only TLS records read while the rest is full may take "
               "(limits.tls_record_reserve_bytes; 0 without TLS): other growths stop short of it.",
               s.memory_reserve);
  out.family("sluice_connection_memory_refusals_total", Type::counter,
             "Buffer growths refused (a client answered, or its read made to wait): past one connection's share, "
             "or past the server's cap.");
  out.sample("sluice_connection_memory_refusals_total", {{"limit", "connection"}}, s.memory_refused_connection);
  out.sample("sluice_connection_memory_refusals_total", {{"limit", "server"}}, s.memory_refused_server);
  server_value(out, "sluice_log_lines_dropped_total", Type::counter,
               "Log lines dropped because the log output would have blocked.", s.log_lines_dropped);
}

}  // namespace

void write_exposition(const Registry& registry, const ServerGauges& server, std::string& out) {
  Exposition exposition(out);
  write_connections(exposition, registry);
  write_events(exposition, registry);
  write_flushes(exposition, registry);
  write_tokens(exposition, registry);
  write_broker(exposition, registry);
  write_server(exposition, registry, server);
}

}  // namespace sluice::metrics
