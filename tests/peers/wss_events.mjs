// Node's `ws` package over wss:// with a CA of the test's own (the
// certificate is verified): subscribes to /ws/{topic}, publishes 500
// messages through a second wss:// connection to the publisher endpoint
// /pub/{topic}, receives every one in order, then closes and sees the
// server's close 1000.
// Usage: node wss_events.mjs PORT CA_FILE
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'wss_events';
const port = Number(process.argv[2]);
const ca = readFileSync(process.argv[3]);
const kEvents = 500;
const topic = 'peer-wss-events';
const received = [];
exitAfter(30000, script, () => `event ${received.length} of ${kEvents}`);

const options = { ca, servername: 'localhost' };
const sub = new WebSocket(`wss://127.0.0.1:${port}/ws/${topic}`, options);
sub.on('open', () => {
  const pub = new WebSocket(`wss://127.0.0.1:${port}/pub/${topic}`, options);
  pub.on('open', () => {
    for (let i = 0; i < kEvents; i++) pub.send(`n${i}`);
  });
  pub.on('error', (e) => fail(script, `publisher: ${e.message}`));
});
sub.on('message', (raw, isBinary) => {
  if (isBinary) fail(script, 'got a binary message');
  const text = raw.toString();
  if (text !== `n${received.length}`) fail(script, `message ${received.length} was ${text}`);
  received.push(text);
  if (received.length === kEvents) sub.close(1000, 'done');
});
sub.on('close', (code) => {
  if (received.length !== kEvents) fail(script, `closed with ${code} after ${received.length} events`);
  if (code !== 1000) fail(script, `server answered the close with ${code}`);
  console.log(`${script}: ${kEvents} events in order over wss, close code 1000`);
  process.exit(0);
});
sub.on('error', (e) => fail(script, e.message));
