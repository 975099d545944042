// Owns: H2Callbacks, the functions nghttp2 calls back into an H2Session
// (frames to send, DATA to read from a stream's queue, headers, data and
// stream closes received), each a short step into the session's state.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>

namespace sluice::transport {

struct H2Callbacks {
  // A callbacks object for nghttp2_session_server_new3 (which copies it);
  // the caller frees it with nghttp2_session_callbacks_del. Null when
  // nghttp2 is out of memory.
  static nghttp2_session_callbacks* make();

  // The read callback of a response body (nghttp2_data_provider).
  static ssize_t read_data(nghttp2_session* session, std::int32_t stream_id, std::uint8_t* buf, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void* user_data);

  static ssize_t send(nghttp2_session* session, const std::uint8_t* data, std::size_t length, int flags,
                      void* user_data);
  static int send_data(nghttp2_session* session, nghttp2_frame* frame, const std::uint8_t* header,
                       std::size_t length, nghttp2_data_source* source, void* user_data);
  static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user_data);
  static int on_header(nghttp2_session* session, const nghttp2_frame* frame, const std::uint8_t* name,
                       std::size_t name_length, const std::uint8_t* value, std::size_t value_length,
                       std::uint8_t flags, void* user_data);
  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user_data);
  static int on_data_chunk(nghttp2_session* session, std::uint8_t flags, std::int32_t stream_id,
                           const std::uint8_t* data, std::size_t length, void* user_data);
  static int on_stream_close(nghttp2_session* session, std::int32_t stream_id, std::uint32_t error_code,
                             void* user_data);
  static int on_frame_send(nghttp2_session* session, const nghttp2_frame* frame, void* user_data);
};

}  // namespace sluice::transport
