// The WebSocket framing a peer script speaks inside an HTTP/2 stream
// (extended CONNECT), where no WebSocket library does it for it.
import crypto from 'node:crypto';

// One client frame: FIN, `opcode`, masked with a fresh key.
export function maskedFrame(opcode, payload) {
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length])
    : length < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff])
      : (() => { const b = Buffer.alloc(10); b[0] = 0x80 | opcode; b[1] = 0x80 | 127; b.writeBigUInt64BE(BigInt(length), 2); return b; })();
  const key = crypto.randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; ++i) body[i] ^= key[i % 4];
  return Buffer.concat([head, key, body]);
}

// Splits whole server frames (unmasked, final: this server does not
// fragment small events) off `buffer`, calling onFrame(opcode, payload);
// returns what is left. `onWrong(why)` hears of a frame no server may send.
export function takeFrames(buffer, onFrame, onWrong) {
  for (;;) {
    if (buffer.length < 2) return buffer;
    if (buffer[1] & 0x80) onWrong('the server masked a frame');
    let length = buffer[1] & 0x7f;
    let at = 2;
    if (length === 126) {
      if (buffer.length < 4) return buffer;
      length = buffer.readUInt16BE(2);
      at = 4;
    } else if (length === 127) {
      if (buffer.length < 10) return buffer;
      length = Number(buffer.readBigUInt64BE(2));
      at = 10;
    }
    if (buffer.length < at + length) return buffer;
    if ((buffer[0] & 0x80) === 0) onWrong('a fragmented message (not sent by this server for small events)');
    onFrame(buffer[0] & 0x0f, buffer.subarray(at, at + length));
    buffer = buffer.subarray(at + length);
  }
}
