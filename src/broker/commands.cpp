#include "broker/commands.hpp"

#include <charconv>

namespace sluice::broker {

namespace {

// RESP: "*N\r\n", then each argument as "$LEN\r\nBYTES\r\n". An argument may
// come in two pieces (a key is prefix + topic).
class Resp {
 public:
  Resp(std::string& out, std::size_t args) : out_(out) {
    out_.clear();
    header('*', args);
  }
  Resp& arg(std::string_view a, std::string_view b = {}) {
    header('$', a.size() + b.size());
    out_.append(a).append(b).append("\r\n");
    return *this;
  }
  Resp& number(std::uint64_t n) {
    char digits[20];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    return arg(std::string_view(digits, static_cast<std::size_t>(end - digits)));
  }
  Resp& signed_number(std::int64_t n) {
    char digits[21];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    return arg(std::string_view(digits, static_cast<std::size_t>(end - digits)));
  }
  Resp& id(StreamId id) {
    char text[kMaxStreamIdText];
    return arg(std::string_view(text, format_stream_id(id, text)));
  }

 private:
  void header(char kind, std::size_t n) {
    char digits[20];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    out_.push_back(kind);
    out_.append(digits, end).append("\r\n");
  }

  std::string& out_;
};

}  // namespace

void write_ping(std::string& out) { Resp(out, 1).arg("PING"); }

void write_client_id(std::string& out) { Resp(out, 2).arg("CLIENT").arg("ID"); }

void write_client_unblock(std::string& out, std::int64_t client_id) {
  Resp(out, 3).arg("CLIENT").arg("UNBLOCK").signed_number(client_id);
}

void write_script_load(std::string& out, std::string_view script) {
  Resp(out, 3).arg("SCRIPT").arg("LOAD").arg(script);
}

void write_claim_shard(std::string& out, std::string_view prefix, std::string_view mark) {
  Resp(out, 5).arg("SET").arg(prefix, "$shard").arg(mark).arg("NX").arg("GET");
}

void write_publish(std::string& out, std::string_view script_sha, std::string_view prefix, std::string_view topic,
                   std::uint64_t max_len, const EventFields& fields) {
  Resp(out, 8)
      .arg("EVALSHA")
      .arg(script_sha)
      .arg("1")
      .arg(prefix, topic)
      .number(max_len)
      .arg(fields.data)
      .arg(fields.event)
      .arg(fields.key);
}

void write_read(std::string& out, std::string_view prefix, std::span<const ReadCursor> cursors, std::uint64_t count,
                std::uint64_t block_ms) {
  Resp resp(out, 6 + 2 * cursors.size());
  resp.arg("XREAD").arg("COUNT").number(count).arg("BLOCK").number(block_ms).arg("STREAMS");
  for (const ReadCursor& c : cursors) resp.arg(prefix, c.topic);
  for (const ReadCursor& c : cursors) resp.id(c.after);
}

void write_newest(std::string& out, std::string_view prefix, std::string_view topic) {
  Resp(out, 6).arg("XREVRANGE").arg(prefix, topic).arg("+").arg("-").arg("COUNT").arg("1");
}

void write_range(std::string& out, std::string_view prefix, std::string_view topic, StreamId first, StreamId last,
                 std::uint64_t count) {
  Resp(out, 6).arg("XRANGE").arg(prefix, topic).id(first).id(last).arg("COUNT").number(count);
}

}  // namespace sluice::broker
