// Node's built-in `http2` client opening a WebSocket over HTTP/2 (extended
// CONNECT, RFC 8441) on /ws/{topic}, speaking the WebSocket framing itself
// inside the stream: it masks every frame it sends, as a client must.
//   node h2_websocket.mjs URL TOPIC COUNT [CA_FILE]
//     waits for the server's SETTINGS_ENABLE_CONNECT_PROTOCOL, opens the
//     stream, pings (and wants its pong), publishes COUNT events by POST on
//     the same session and wants them as messages in order, sends a message
//     of its own (published to the topic, so it comes back), then closes
//     with 1000 and wants the server's close 1000.
//   node h2_websocket.mjs URL --refusals
//     sends the requests a server must refuse and prints their statuses:
//     CONNECT without :protocol, a wrong path, another protocol, no
//     sec-websocket-version, sec-websocket-version twice.
import fs from 'node:fs';
import http2 from 'node:http2';
import { exitAfter, fail } from './lib/deadline.mjs';
import { maskedFrame, takeFrames as splitFrames } from './lib/ws_frames.mjs';

const script = 'h2_websocket';
const [url, topicArg, countArg, caFile] = process.argv.slice(2);
const session = http2.connect(url, caFile ? { ca: fs.readFileSync(caFile) } : {});
session.on('error', (e) => fail(script, `session: ${e.message}`));

function open(headers) {
  return session.request({ ':method': 'CONNECT', ...headers }, { endStream: false });
}

// Splits whole server frames off `buffer`; a masked or fragmented one fails.
function takeFrames(buffer, onFrame) {
  return splitFrames(buffer, onFrame, (why) => fail(script, why));
}

function statusOf(headers) {
  return new Promise((resolve) => {
    const req = open(headers);
    req.on('response', (h) => { resolve(h[':status']); req.close(); });
    req.on('error', () => resolve('reset'));
    req.resume();
  });
}

async function refusals() {
  exitAfter(20000, script, () => 'the refusals');
  const authority = new URL(url).host;
  const statuses = [
    await statusOf({ ':authority': authority }),
    await statusOf({ ':protocol': 'websocket', ':path': '/nowhere', 'sec-websocket-version': '13' }),
    await statusOf({ ':protocol': 'webtransport', ':path': '/ws/t', 'sec-websocket-version': '13' }),
    await statusOf({ ':protocol': 'websocket', ':path': '/ws/t' }),
    await statusOf({ ':protocol': 'websocket', ':path': '/ws/t', 'sec-websocket-version': ['13', '13'] }),
  ];
  console.log(`${script}: refusals ${statuses.join(' ')}`);
  session.close();
}

function publish(topic, body) {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': `/pub/${topic}` });
    req.on('response', (h) => { if (h[':status'] !== 200) reject(new Error(`publish answered ${h[':status']}`)); });
    req.on('end', resolve);
    req.on('error', reject);
    req.resume();
    req.end(body);
  });
}

function stream(topic, count) {
  const received = [];
  let pong = false;
  let echoed = false;
  let closeCode = 0;
  exitAfter(30000, script, () => `${received.length}/${count} events, pong ${pong}, echo ${echoed}, close ${closeCode}`);
  const ws = open({ ':protocol': 'websocket', ':path': `/ws/${topic}`, 'sec-websocket-version': '13' });
  let pending = Buffer.alloc(0);
  ws.on('response', (h) => {
    if (h[':status'] !== 200) fail(script, `CONNECT answered ${h[':status']}`);
    ws.write(maskedFrame(0x9, Buffer.from('are you there')));
  });
  ws.on('data', (chunk) => {
    pending = takeFrames(Buffer.concat([pending, chunk]), (opcode, payload) => {
      if (opcode === 0xa) {
        if (payload.toString() !== 'are you there') fail(script, `pong carried ${payload}`);
        pong = true;
        (async () => { for (let i = 0; i < count; ++i) await publish(topic, `e${i}`); })()
          .catch((e) => fail(script, e.message));
      } else if (opcode === 0x1 && received.length < count) {
        if (payload.toString() !== `e${received.length}`) fail(script, `event ${received.length} was ${payload}`);
        received.push(payload.toString());
        if (received.length === count) ws.write(maskedFrame(0x1, Buffer.from('from the client')));
      } else if (opcode === 0x1) {
        if (payload.toString() !== 'from the client') fail(script, `after the events came ${payload}`);
        echoed = true;
        const close = Buffer.alloc(2);
        close.writeUInt16BE(1000);
        ws.write(maskedFrame(0x8, close));
      } else if (opcode === 0x8) {
        closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      } else if (opcode === 0x9) {
        ws.write(maskedFrame(0xa, payload));
      } else {
        fail(script, `unexpected opcode ${opcode}`);
      }
    });
  });
  ws.on('end', () => {
    if (received.length !== count || !pong || !echoed || closeCode !== 1000) {
      fail(script, `stream ended: ${received.length}/${count} events, pong ${pong}, echo ${echoed}, close ${closeCode}`);
    }
    console.log(`${script}: ${count} events in order, pong, own message published back, close 1000, ` +
                `protocol ${session.alpnProtocol}`);
    session.close();
  });
  ws.on('error', (e) => fail(script, `stream: ${e.message}`));
}

session.once('remoteSettings', (settings) => {
  if (!settings.enableConnectProtocol) fail(script, 'the server did not announce SETTINGS_ENABLE_CONNECT_PROTOCOL');
  if (topicArg === '--refusals') refusals().catch((e) => fail(script, e.message));
  else stream(topicArg, Number(countArg));
});
