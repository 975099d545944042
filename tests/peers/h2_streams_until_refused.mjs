// Node's built-in `http2` client over TLS against a server whose
// connection share holds a few dozen streams: SSE streams are opened one
// at a time on one session (GET /sse/h2share{i}, each waiting for its
// retry: line, which says it joined its topic) until the server refuses
// one with RST_STREAM(REFUSED_STREAM). Then, from a second session, one
// event is published to the first stream's topic and one to the last open
// stream's: both must arrive, the full session still being read.
// Usage: node h2_streams_until_refused.mjs URL CA_FILE LIMIT
import http2 from 'node:http2';
import fs from 'node:fs';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'h2_streams_until_refused';
const [url, caFile, limitArg] = process.argv.slice(2);
const limit = Number(limitArg);
const ca = fs.readFileSync(caFile);
const { NGHTTP2_REFUSED_STREAM } = http2.constants;
const bodies = [];
let refusedAt = -1;
exitAfter(20000, script, () => `${bodies.length} streams open, refused at ${refusedAt}`);

const session = http2.connect(url, { ca });
session.on('error', (e) => fail(script, `session: ${e.message}`));

function arrived(index, text) {
  return bodies[index].includes(`data: ${text}\n\n`);
}

function finishIfDone() {
  const last = refusedAt - 1;
  if (!arrived(0, 'to the first') || !arrived(last, 'to the last')) return;
  console.log(`${script}: ${refusedAt} streams open, the next refused (REFUSED_STREAM); ` +
    `the first and the last got their events, protocol ${session.alpnProtocol}`);
  process.exit(0);
}

function publishToFirstAndLast() {
  const publisher = http2.connect(url, { ca });
  publisher.on('error', (e) => fail(script, `publisher: ${e.message}`));
  const targets = [[0, 'to the first'], [refusedAt - 1, 'to the last']];
  for (const [index, text] of targets) {
    const req = publisher.request({ ':method': 'POST', ':path': `/pub/h2share${index}` });
    req.on('response', (headers) => {
      if (headers[':status'] !== 200) fail(script, `publish to ${index} answered ${headers[':status']}`);
    });
    req.on('error', (e) => fail(script, `publish to ${index}: ${e.message}`));
    req.resume();
    req.end(text);
  }
}

function open(index) {
  if (index === limit) fail(script, `no stream refused within ${limit}`);
  const req = session.request({ ':path': `/sse/h2share${index}` });
  req.setEncoding('utf8');
  let joined = false;
  req.on('response', (headers) => {
    if (headers[':status'] !== 200) fail(script, `stream ${index} answered ${headers[':status']}`);
  });
  req.on('data', (chunk) => {
    bodies[index] += chunk;
    if (!joined && bodies[index].includes('retry: ')) {
      joined = true;
      open(index + 1);
    }
    if (refusedAt > 0) finishIfDone();
  });
  req.on('error', (e) => {
    if (req.rstCode !== NGHTTP2_REFUSED_STREAM) fail(script, `stream ${index}: ${e.message}`);
  });
  req.on('close', () => {
    if (joined) fail(script, `open stream ${index} closed (code ${req.rstCode})`);
    if (req.rstCode !== NGHTTP2_REFUSED_STREAM) fail(script, `stream ${index} closed with code ${req.rstCode}`);
    if (index === 0) fail(script, 'the first stream was refused');
    refusedAt = index;
    publishToFirstAndLast();
  });
  bodies[index] = '';
}

open(0);
