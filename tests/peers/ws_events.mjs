// Node's `ws` package on the /ws JSON protocol: subscribes, receives 1,000
// published events in order, then closes and sees the server's close 1000.
// Usage: node ws_events.mjs PORT
import WebSocket from 'ws';
import { exitAfter, fail } from './lib/deadline.mjs';
import { publishAll } from './lib/publisher.mjs';

const script = 'ws_events';
const port = Number(process.argv[2]);
const kEvents = 1000;
const topic = 'peer-ws-events';
const bodies = Array.from({ length: kEvents }, (_, i) => `n${i}`);
const received = [];
exitAfter(30000, script, () => `event ${received.length} of ${kEvents}`);

const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
ws.on('open', () => ws.send(JSON.stringify({ op: 'subscribe', topic, req: 1 })));
ws.on('message', (raw, isBinary) => {
  if (isBinary) fail(script, 'got a binary message');
  const m = JSON.parse(raw.toString());
  if (m.op === 'ack') {
    if (m.req !== 1 || m.ok !== true) fail(script, `subscribe refused: ${raw}`);
    return publishAll(port, topic, bodies, 100).catch((e) => fail(script, e.message));
  }
  if (m.op !== 'event' || m.topic !== topic) fail(script, `unexpected message ${raw}`);
  const seq = Number(m.id.split(':')[1]);
  if (m.data !== bodies[received.length] || seq !== received.length + 1) {
    fail(script, `event ${received.length} was id ${m.id} data ${m.data}`);
  }
  received.push(seq);
  if (received.length === kEvents) ws.close(1000, 'done');
});
ws.on('close', (code) => {
  if (received.length !== kEvents) fail(script, `closed with ${code} after ${received.length} events`);
  if (code !== 1000) fail(script, `server answered the close with ${code}`);
  console.log(`${script}: ${kEvents} events in order, close code 1000`);
  process.exit(0);
});
ws.on('error', (e) => fail(script, e.message));
