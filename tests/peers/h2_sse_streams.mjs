// Node's built-in `http2` client against sluiced: N event streams on one
// HTTP/2 session (GET /sse/h2peer{0..3}), then, once every stream has its
// 200, one POST /pub per topic on the same session. Every stream must
// receive the event published to its topic, and every POST must answer 200
// with its topic's subscriber count.
// Usage: node h2_sse_streams.mjs URL STREAMS [CA_FILE]
import http2 from 'node:http2';
import fs from 'node:fs';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'h2_sse_streams';
const [url, countArg, caFile] = process.argv.slice(2);
const streams = Number(countArg);
const kTopics = 4;
const opened = new Set();
const received = new Set();
const answered = new Map();
exitAfter(20000, script, () => `${opened.size}/${streams} open, ${received.size}/${streams} events, ` +
  `${answered.size}/${kTopics} publishes answered`);

const session = http2.connect(url, caFile ? { ca: fs.readFileSync(caFile) } : {});
session.on('error', (e) => fail(script, `session: ${e.message}`));

function finishIfDone() {
  if (received.size !== streams || answered.size !== kTopics) return;
  const counts = [...answered.values()].join(',');
  console.log(`${script}: ${streams} streams on one session got their event, publishes saw ${counts} ` +
    `subscribers, protocol ${session.alpnProtocol}`);
  session.close();
  process.exit(0);
}

function publishAll() {
  for (let t = 0; t < kTopics; ++t) {
    const req = session.request({ ':method': 'POST', ':path': `/pub/h2peer${t}` });
    let reply = '';
    req.setEncoding('utf8');
    req.on('response', (headers) => {
      if (headers[':status'] !== 200) fail(script, `publish ${t} answered ${headers[':status']}`);
    });
    req.on('data', (chunk) => { reply += chunk; });
    req.on('end', () => {
      const subscribers = JSON.parse(reply).subscribers;
      answered.set(t, subscribers);
      finishIfDone();
    });
    req.on('error', (e) => fail(script, `publish ${t}: ${e.message}`));
    req.end(`go ${t}`);
  }
}

for (let i = 0; i < streams; ++i) {
  const topic = i % kTopics;
  const req = session.request({ ':path': `/sse/h2peer${topic}` });
  req.setEncoding('utf8');
  let body = '';
  req.on('response', (headers) => {
    if (headers[':status'] !== 200) fail(script, `stream ${i} answered ${headers[':status']}`);
    if (headers['content-type'] !== 'text/event-stream') fail(script, `stream ${i} is ${headers['content-type']}`);
  });
  req.on('data', (chunk) => {
    body += chunk;
    // The stream's retry: line says it has joined its topic.
    if (!opened.has(i) && body.includes('retry: ')) {
      opened.add(i);
      if (opened.size === streams) publishAll();
    }
    if (body.includes(`data: go ${topic}\n\n`)) {
      received.add(i);
      finishIfDone();
    }
  });
  req.on('error', (e) => fail(script, `stream ${i}: ${e.message}`));
}
