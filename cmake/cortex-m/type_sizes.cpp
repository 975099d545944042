// The size report's probe: one symbol per type of the core, as large as
// the type is on the target, so that `nm -S` reads the compiler's own
// layout for Cortex-M (pointers and size_t of 4 bytes, 8-byte alignment of
// 64-bit ids). These are the per-object costs the flash figures leave out:
// what each connection, queued frame and pool block holds in RAM.
#include "buf/frame.hpp"
#include "buf/pool.hpp"
#include "conn/out_queue.hpp"
#include "delivery/drop_record.hpp"
#include "proto/http1.hpp"
#include "proto/sse_parser.hpp"
#include "proto/utf8.hpp"
#include "proto/ws_decoder.hpp"

#define SLUICE_SIZE_OF(name, ...) \
  extern "C" {                    \
  char sluice_sizeof_##name[sizeof(__VA_ARGS__)]; \
  }

SLUICE_SIZE_OF(buf_Block_header, sluice::buf::Block)
SLUICE_SIZE_OF(buf_Pool, sluice::buf::Pool)
SLUICE_SIZE_OF(buf_FrameRef, sluice::buf::FrameRef)
SLUICE_SIZE_OF(conn_OutQueue, sluice::conn::OutQueue)
SLUICE_SIZE_OF(conn_QueuedFrame_ring_slot, sluice::conn::QueuedFrame)
SLUICE_SIZE_OF(delivery_DropRecord, sluice::delivery::DropRecord)
SLUICE_SIZE_OF(proto_http1_RequestParser, sluice::proto::http1::RequestParser)
SLUICE_SIZE_OF(proto_sse_Parser, sluice::proto::sse::Parser)
SLUICE_SIZE_OF(proto_ws_Decoder, sluice::proto::ws::Decoder)
SLUICE_SIZE_OF(proto_ws_Utf8Validator, sluice::proto::ws::Utf8Validator)
