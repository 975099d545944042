// The /ws JSON codec against the nlohmann document model it replaces in the
// server, as Google Benchmarks in one run:
//   Read*     one publish request: read_request() into a reused scratch
//             buffer, or nlohmann::json::parse() and the lookups the server
//             made (op, topic, data, event, key, req re-serialised)
//   WriteAck  an ack into a stack buffer, or built as a std::string
// Reported: time per message and heap allocations per message.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloc_counter.hpp"
#include "proto/ws_json.hpp"
#include "proto/ws_json_writer.hpp"
#include "buf/fixed_sink.hpp"

namespace {

const std::string kPublish =
    R"({"op":"publish","topic":"prices.eu",)"
    R"("data":"{\"symbol\":\"ACME\",\"bid\":101.25,\"ask\":101.5,\"ts\":1712345678901}",)"
    R"("event":"tick","key":"ACME","req":12345})";

void count_allocations(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs/msg"] = benchmark::Counter(static_cast<double>(sluice::test::allocations() - before),
                                                    benchmark::Counter::kAvgIterations);
}

void ReadCodec(benchmark::State& state) {
  std::vector<char> scratch(kPublish.size());
  sluice::proto::wsjson::Request request;
  const std::uint64_t before = sluice::test::allocations();
  for (auto _ : state) {
    benchmark::DoNotOptimize(sluice::proto::wsjson::read_request(kPublish, {}, scratch, request));
    benchmark::DoNotOptimize(request.data.data());
  }
  count_allocations(state, before);
}

std::string_view field(const nlohmann::json& message, const char* name) {
  const auto it = message.find(name);
  return it != message.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                                : std::string_view();
}

void ReadNlohmann(benchmark::State& state) {
  const std::uint64_t before = sluice::test::allocations();
  for (auto _ : state) {
    const nlohmann::json message = nlohmann::json::parse(kPublish, nullptr, false);
    std::string req;
    if (const auto it = message.find("req"); it != message.end()) req = it->dump();
    benchmark::DoNotOptimize(field(message, "op").data());
    benchmark::DoNotOptimize(field(message, "topic").data());
    benchmark::DoNotOptimize(field(message, "data").data());
    benchmark::DoNotOptimize(field(message, "event").data());
    benchmark::DoNotOptimize(field(message, "key").data());
    benchmark::DoNotOptimize(req.data());
  }
  count_allocations(state, before);
}

void WriteAckCodec(benchmark::State& state) {
  const sluice::proto::wsjson::Ack ack{sluice::proto::wsjson::Req(12345), true, "mx3d1k2a:7"};
  char buffer[256];
  const std::uint64_t before = sluice::test::allocations();
  for (auto _ : state) {
    sluice::buf::FixedSink sink(buffer, sizeof buffer);
    benchmark::DoNotOptimize(sluice::proto::wsjson::write_ack(sink, ack));
  }
  count_allocations(state, before);
}

void WriteAckString(benchmark::State& state) {
  const std::uint64_t before = sluice::test::allocations();
  for (auto _ : state) {
    std::string text = "{\"op\":\"ack\",\"req\":";
    text.append("12345").append(",\"ok\":true,\"id\":\"mx3d1k2a:7\"}");
    benchmark::DoNotOptimize(text.data());
  }
  count_allocations(state, before);
}

}  // namespace

BENCHMARK(ReadCodec);
BENCHMARK(ReadNlohmann);
BENCHMARK(WriteAckCodec);
BENCHMARK(WriteAckString);
BENCHMARK_MAIN();
