// Node's `ws` package against /ws-echo with permessage-deflate: large text
// and binary messages go out in fragments (text split in the middle of
// UTF-8 characters), compressed, and must come back whole and unchanged;
// the bytes on the wire show that both directions were compressed.
// Usage: node ws_echo.mjs PORT
import crypto from 'node:crypto';
import net from 'node:net';
import WebSocket from 'ws';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'ws_echo';
const port = Number(process.argv[2]);
const kFragment = 64 * 1024 + 1;  // odd, so text fragments end inside characters

// 600 KB that compress well, with two-, three- and four-byte characters.
const text = Buffer.from('€ sluice ✓ ñ 𝄞 '.repeat(600 * 1024 / 24), 'utf8');
const random = crypto.randomBytes(700 * 1024);  // does not compress
const messages = [
  { data: text, binary: false, fragmented: true },
  { data: random, binary: true, fragmented: true },
  { data: Buffer.from('short, unfragmented'), binary: false, fragmented: false },
  { data: text.subarray(0, 200 * 1024), binary: true, fragmented: false },
];
let echoed = 0;
exitAfter(30000, script, () => `echo ${echoed} of ${messages.length}`);

let socket;
const ws = new WebSocket(`ws://127.0.0.1:${port}/ws-echo`, {
  perMessageDeflate: true,
  maxPayload: 2 * 1024 * 1024,
  // Only host and port: Node 18's net would take the request's `path` for a Unix socket.
  createConnection: (options) => (socket = net.createConnection({ host: options.host, port: options.port })),
});

function sendFragmented({ data, binary }) {
  for (let at = 0; at < data.length; at += kFragment) {
    const fin = at + kFragment >= data.length;
    ws.send(data.subarray(at, at + kFragment), { binary, compress: true, fin });
  }
}

ws.on('open', () => {
  if (!/permessage-deflate/.test(ws.extensions)) fail(script, `no permessage-deflate negotiated: '${ws.extensions}'`);
  for (const m of messages) {
    if (m.fragmented) sendFragmented(m);
    else ws.send(m.data, { binary: m.binary, compress: true });
  }
});
ws.on('message', (data, isBinary) => {
  const want = messages[echoed];
  if (isBinary !== want.binary || !data.equals(want.data)) {
    fail(script, `echo ${echoed}: ${isBinary ? 'binary' : 'text'} of ${data.length} bytes differs from what was sent`);
  }
  if (++echoed === messages.length) ws.close(1000);
});
ws.on('close', (code) => {
  if (echoed !== messages.length) fail(script, `closed with ${code} after ${echoed} echoes`);
  if (code !== 1000) fail(script, `server answered the close with ${code}`);
  // Everything but the random bytes compresses at least tenfold.
  const plain = messages.reduce((n, m) => n + m.data.length, 0);
  const bound = random.length + (plain - random.length) / 10 + 4096;
  if (socket.bytesWritten > bound) fail(script, `sent ${socket.bytesWritten} bytes: not compressed`);
  if (socket.bytesRead > bound) fail(script, `received ${socket.bytesRead} bytes: the echoes were not compressed`);
  console.log(`${script}: ${echoed} fragmented/compressed messages echoed intact ` +
    `(${plain} bytes, ${socket.bytesWritten} sent, ${socket.bytesRead} received), close code 1000`);
  process.exit(0);
});
ws.on('error', (e) => fail(script, e.message));
