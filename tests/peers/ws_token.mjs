// Node's `ws` package against sluiced with auth.mode=jwt: with a bearer
// token in the upgrade request it subscribes to a granted topic, is refused
// another with a failed ack (403), publishes and receives its own event;
// without a token, a topic WebSocket is closed with 4401 and the reason.
// Usage: node ws_token.mjs PORT TOKEN (the token grants subscribe and
// publish on "news" only)
import WebSocket from 'ws';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'ws_token';
const port = Number(process.argv[2]);
const token = process.argv[3];
let stage = 'the bearer connection to open';
exitAfter(20000, script, () => stage);

function withoutToken() {
  stage = 'the close of the connection without a token';
  const anon = new WebSocket(`ws://127.0.0.1:${port}/ws/news`);
  anon.on('close', (code, reason) => {
    if (code !== 4401) fail(script, `closed ${code} ${reason}, not 4401`);
    if (!reason.toString().startsWith('401 ')) fail(script, `reason ${reason}`);
    console.log(`${script}: bearer subscribe ok, ungranted 403 ack, own event received, no token closed 4401`);
    process.exit(0);
  });
  anon.on('error', (e) => fail(script, e.message));
}

const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { Authorization: `Bearer ${token}` } });
ws.on('open', () => {
  stage = 'the ack of the granted subscribe';
  ws.send(JSON.stringify({ op: 'subscribe', topic: 'news', req: 1 }));
});
ws.on('message', (raw) => {
  const m = JSON.parse(raw.toString());
  if (m.op === 'ack' && m.req === 1) {
    if (m.ok !== true) fail(script, `granted subscribe refused: ${raw}`);
    stage = 'the ack of the subscribe not granted';
    ws.send(JSON.stringify({ op: 'subscribe', topic: 'prices', req: 2 }));
  } else if (m.op === 'ack' && m.req === 2) {
    if (m.ok !== false || !String(m.error).startsWith('403 ')) fail(script, `ungranted subscribe: ${raw}`);
    stage = 'the own event';
    ws.send(JSON.stringify({ op: 'publish', topic: 'news', data: 'from node', req: 3 }));
  } else if (m.op === 'ack' && m.req === 3) {
    if (m.ok !== true) fail(script, `publish refused: ${raw}`);
  } else if (m.op === 'event') {
    if (m.topic !== 'news' || m.data !== 'from node') fail(script, `unexpected event ${raw}`);
    ws.close(1000);
    withoutToken();
  } else {
    fail(script, `unexpected message ${raw}`);
  }
});
ws.on('error', (e) => fail(script, e.message));
