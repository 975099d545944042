#include "ws_protocol.hpp"

#include "proto/topic_name.hpp"
#include "proto/ws_json_writer.hpp"
#include "buf/string_sink.hpp"

namespace sluice::client::detail {

namespace {

proto::wsjson::Op wire_op(WsRequest::Op op) {
  switch (op) {
    case WsRequest::Op::subscribe: return proto::wsjson::Op::subscribe;
    case WsRequest::Op::unsubscribe: return proto::wsjson::Op::unsubscribe;
    case WsRequest::Op::publish: return proto::wsjson::Op::publish;
  }
  return proto::wsjson::Op::publish;
}

void append(const proto::wsjson::Request& request, std::string& out) {
  buf::StringSink sink(out);
  (void)proto::wsjson::write_request(sink, request);  // a StringSink never refuses
}

}  // namespace

void encode_subscribe(std::string_view topic, std::string_view since, std::string_view policy, std::uint64_t req,
                      std::string& out) {
  append({.op = proto::wsjson::Op::subscribe, .topic = topic, .since = since, .policy = policy,
          .req = proto::wsjson::Req(req)},
         out);
}

void encode_refresh(std::string_view token, std::uint64_t req, std::string& out) {
  append({.op = proto::wsjson::Op::refresh, .token = token, .req = proto::wsjson::Req(req)}, out);
}

void encode_request(const WsRequest& request, std::string& out) {
  append({.op = wire_op(request.op),
          .topic = request.topic,
          .data = request.data,
          .event = request.event,
          .key = request.key,
          .since = request.since,
          .policy = request.policy,
          .req = proto::wsjson::Req(request.req)},
         out);
}

bool is_valid_topic(std::string_view topic) {
  return proto::valid_topic_name(topic, proto::kTopicNameCeiling);
}

}  // namespace sluice::client::detail
