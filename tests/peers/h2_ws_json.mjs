// Node's built-in `http2` client speaking sluice's /ws JSON protocol over
// one HTTP/2 stream (extended CONNECT, RFC 8441), framing its WebSocket
// messages itself (masked, as a client must).
//   node h2_ws_json.mjs URL TOPIC_A TOPIC_B [CA_FILE]
//     waits for SETTINGS_ENABLE_CONNECT_PROTOCOL, opens /ws, subscribes to
//     both topics, publishes one event to each over the same stream, wants
//     every ack ok and both events as {"op":"event"} envelopes, then closes
//     with 1000 and wants the server's close 1000.
import fs from 'node:fs';
import http2 from 'node:http2';
import { exitAfter, fail } from './lib/deadline.mjs';
import { maskedFrame, takeFrames } from './lib/ws_frames.mjs';

const script = 'h2_ws_json';
const [url, topicA, topicB, caFile] = process.argv.slice(2);
const session = http2.connect(url, caFile ? { ca: fs.readFileSync(caFile) } : {});
session.on('error', (e) => fail(script, `session: ${e.message}`));

const acks = new Map();  // req -> ok
const events = new Map();  // topic -> data
let closeCode = 0;
exitAfter(20000, script, () => `acks ${[...acks.keys()]}, events ${[...events.keys()]}, close ${closeCode}`);

function send(ws, request) { ws.write(maskedFrame(0x1, Buffer.from(JSON.stringify(request)))); }

session.once('remoteSettings', (settings) => {
  if (!settings.enableConnectProtocol) fail(script, 'the server did not announce SETTINGS_ENABLE_CONNECT_PROTOCOL');
  const ws = session.request({ ':method': 'CONNECT', ':protocol': 'websocket', ':path': '/ws',
    'sec-websocket-version': '13' }, { endStream: false });
  let pending = Buffer.alloc(0);
  ws.on('response', (h) => {
    if (h[':status'] !== 200) fail(script, `CONNECT answered ${h[':status']}`);
    send(ws, { op: 'subscribe', topic: topicA, req: 1 });
    send(ws, { op: 'subscribe', topic: topicB, req: 2 });
  });
  ws.on('data', (chunk) => {
    pending = takeFrames(Buffer.concat([pending, chunk]), (opcode, payload) => {
      if (opcode === 0x8) {
        closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        return;
      }
      if (opcode === 0x9) return ws.write(maskedFrame(0xa, payload));
      if (opcode !== 0x1) fail(script, `unexpected opcode ${opcode}`);
      const message = JSON.parse(payload.toString());
      if (message.op === 'ack') {
        if (!message.ok) fail(script, `req ${message.req} refused: ${message.error}`);
        acks.set(message.req, true);
        // Both subscribed: publish to each, over the same stream.
        if (message.req === 2) {
          send(ws, { op: 'publish', topic: topicA, data: `to ${topicA}`, req: 3 });
          send(ws, { op: 'publish', topic: topicB, data: `to ${topicB}`, req: 4 });
        }
      } else if (message.op === 'event') {
        if (message.data !== `to ${message.topic}`) fail(script, `event ${JSON.stringify(message)}`);
        events.set(message.topic, message.data);
      }
      if (acks.size === 4 && events.size === 2 && closeCode === 0 && !ws.closing) {
        ws.closing = true;
        const close = Buffer.alloc(2);
        close.writeUInt16BE(1000);
        ws.write(maskedFrame(0x8, close));
      }
    }, (why) => fail(script, why));
  });
  ws.on('end', () => {
    if (acks.size !== 4 || events.size !== 2 || closeCode !== 1000) {
      fail(script, `stream ended: ${acks.size} acks, events ${[...events.keys()]}, close ${closeCode}`);
    }
    console.log(`${script}: subscribed to ${topicA} and ${topicB}, published to both on one stream, ` +
                `received both, close 1000, protocol ${session.alpnProtocol}`);
    session.close();
  });
  ws.on('error', (e) => fail(script, `stream: ${e.message}`));
});
