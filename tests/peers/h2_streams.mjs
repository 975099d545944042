// Node's built-in `http2` client: N event streams on one HTTP/2 session
// (GET /sse/{topic}), each of which must receive the event published once
// they are all open, and a WebSocket-style tunnel (extended CONNECT,
// RFC 8441) that must echo what is written into it.
// Usage: node h2_streams.mjs URL STREAMS [CA_FILE]
//   prints "ready" once every stream has its 200, then waits for "data: go".
import http2 from 'node:http2';
import fs from 'node:fs';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'h2_streams';
const [url, countArg, caFile] = process.argv.slice(2);
const streams = Number(countArg);
const opened = new Set();
const received = new Set();
let echoed = '';
exitAfter(30000, script, () => `${opened.size}/${streams} open, ${received.size}/${streams} events, echo '${echoed}'`);

const session = http2.connect(url, caFile ? { ca: fs.readFileSync(caFile) } : {});
session.on('error', (e) => fail(script, `session: ${e.message}`));

function finishIfDone() {
  if (received.size !== streams || echoed !== 'ping') return;
  const alpn = session.alpnProtocol;
  console.log(`${script}: ${streams} streams on one session got the event, tunnel echoed, protocol ${alpn}`);
  session.close();
  process.exit(0);
}

for (let i = 0; i < streams; ++i) {
  const req = session.request({ ':path': `/sse/h2peer${i % 4}` });
  req.setEncoding('utf8');
  let body = '';
  req.on('response', (headers) => {
    if (headers[':status'] !== 200) fail(script, `stream ${i} answered ${headers[':status']}`);
    if (headers['content-type'] !== 'text/event-stream') fail(script, `stream ${i} is ${headers['content-type']}`);
    opened.add(i);
    if (opened.size === streams) console.log('ready');
  });
  req.on('data', (chunk) => {
    body += chunk;
    if (body.includes('data: go\n\n')) {
      received.add(i);
      finishIfDone();
    }
  });
  req.on('error', (e) => fail(script, `stream ${i}: ${e.message}`));
}

session.on('remoteSettings', (settings) => {
  if (!settings.enableConnectProtocol) fail(script, 'the server did not announce SETTINGS_ENABLE_CONNECT_PROTOCOL');
  const tunnel = session.request({ ':method': 'CONNECT', ':protocol': 'websocket', ':path': '/ws/echo' });
  tunnel.setEncoding('latin1');
  tunnel.on('response', (headers) => {
    if (headers[':status'] !== 200) fail(script, `CONNECT answered ${headers[':status']}`);
    tunnel.write('ping');
  });
  tunnel.on('data', (chunk) => {
    echoed += chunk;
    finishIfDone();
  });
  tunnel.on('error', (e) => fail(script, `tunnel: ${e.message}`));
});
