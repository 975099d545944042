// Headless Chromium (Debian's, driven through playwright-core) opens N
// EventSource streams to one origin, sluiced over TLS, and every one must
// receive the event the page then publishes. Over HTTP/1.1 a browser opens
// at most 6 connections per origin and the seventh stream would wait
// forever; over HTTP/2 (ALPN h2) they all share one connection.
// Chromium trusts the test's certificate by its public key's hash
// (--ignore-certificate-errors-spki-list), computed here from the PEM.
// sluiced serves no files, so Playwright answers the request for the page
// itself, at sluiced's origin; the page's EventSources and its fetch talk to
// sluiced directly.
// The same page also opens a WebSocket on /ws/{topic}: Chromium has an
// HTTP/2 connection to the origin already, and sluiced announced
// SETTINGS_ENABLE_CONNECT_PROTOCOL on it, so the WebSocket may go over
// that connection as an extended CONNECT; the test reads from sluiced's
// access log which way it went.
// Usage: node chromium_h2_streams.mjs PORT CERT_PEM STREAMS
// (CHROMIUM names another browser binary than /usr/bin/chromium)
import crypto from 'node:crypto';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'chromium_h2_streams';
const [port, certFile, countArg] = process.argv.slice(2);
const streams = Number(countArg);
const origin = `https://127.0.0.1:${port}`;
let stage = 'chromium to start';
exitAfter(60000, script, () => stage);

const spki = new crypto.X509Certificate(fs.readFileSync(certFile)).publicKey.export({ type: 'spki', format: 'der' });
const spkiHash = crypto.createHash('sha256').update(spki).digest('base64');

const page = `<!doctype html><meta charset="utf-8"><title>h2 streams</title><script>
window.peer = { opens: 0, errors: 0, got: new Set(), sources: [], ws: null, wsOpen: false, wsGot: false,
  wsClose: 0 };
function startPeer(n) {
  for (let i = 0; i < n; ++i) {
    const source = new EventSource('/sse/chrome' + (i % 5));
    source.onopen = () => ++peer.opens;
    source.onerror = () => ++peer.errors;
    source.onmessage = (e) => { if (e.data === 'go') peer.got.add(i); };
    peer.sources.push(source);
  }
}
// Once the streams are open: Chromium then has its HTTP/2 connection to
// the origin, the one a WebSocket may go over.
function openSocket() {
  const ws = new WebSocket(location.origin.replace('https:', 'wss:') + '/ws/chrome-ws');
  ws.onopen = () => { peer.wsOpen = true; };
  ws.onmessage = (e) => { if (e.data === 'go') peer.wsGot = true; };
  ws.onclose = (e) => { peer.wsClose = e.code; };
  peer.ws = ws;
}
async function publish() {
  const answers = [];
  for (const topic of ['chrome0', 'chrome1', 'chrome2', 'chrome3', 'chrome4', 'chrome-ws']) {
    const reply = await fetch('/pub/' + topic, { method: 'POST', body: 'go' });
    await reply.text();
    answers.push(reply.status);
  }
  // A fetch's timing entry is recorded once its body has been read, which
  // may be a task after the read resolves: wait for it, a bounded while.
  let entry;
  for (let tries = 0; !entry && tries < 100; ++tries) {
    entry = performance.getEntriesByType('resource').find((e) => e.name.includes('/pub/'));
    if (!entry) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { answers, protocol: entry ? entry.nextHopProtocol : 'unknown' };
}
</script>`;

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const browser = await chromium.launch({
  executablePath,
  // The page is answered by Playwright, not fetched from an address, so
  // Chromium's Local Network Access checks would take it for a public page
  // and block its WebSocket to a loopback address
  // (ERR_BLOCKED_BY_LOCAL_NETWORK_ACCESS_CHECKS); its fetches and
  // EventSources to its own origin are not checked.
  args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync',
    '--disable-features=LocalNetworkAccessChecksWebSockets',
    `--ignore-certificate-errors-spki-list=${spkiHash}`],
  timeout: 30000,
}).catch((e) => fail(script, `cannot start ${executablePath}: ${e.message}`));
let wrong;
try {
  const tab = await browser.newPage();
  const pageUrl = `${origin}/peer/h2.html`;
  stage = 'the page to load';
  await tab.route(pageUrl, (route) => route.fulfill({ body: page, contentType: 'text/html; charset=utf-8' }));
  await tab.goto(pageUrl);
  await tab.unroute(pageUrl);
  stage = `${streams} streams to open`;
  await tab.evaluate((n) => startPeer(n), streams);
  await tab.waitForFunction((n) => peer.opens >= n, streams, { polling: 20, timeout: 20000 });
  stage = 'the WebSocket to open';
  await tab.evaluate(() => openSocket());
  await tab.waitForFunction(() => peer.wsOpen, null, { polling: 20, timeout: 20000 });
  stage = 'the publishes';
  const published = await tab.evaluate(() => publish());
  if (published.answers.some((s) => s !== 200)) throw new Error(`publishes answered ${published.answers}`);
  stage = 'every stream\'s event';
  await tab.waitForFunction((n) => peer.got.size >= n && peer.wsGot, streams, { polling: 20, timeout: 20000 });
  const errors = await tab.evaluate(() => {
    peer.sources.forEach((s) => s.close());
    peer.ws.close(1000);
    return peer.errors;
  });
  console.log(`${script}: ${streams} EventSource streams to one origin all received, ${errors} errors, ` +
    `protocol ${published.protocol} (Chromium ${browser.version()}); the WebSocket received its event`);
} catch (e) {
  const counts = await browser.contexts()[0]?.pages()[0]?.evaluate(() => `${peer.opens} open, ${peer.got.size} got, WebSocket open ${peer.wsOpen} ` +
      `got ${peer.wsGot} close ${peer.wsClose}`)
    .catch(() => '');
  wrong = `${e.message} (while waiting for ${stage}; ${counts})`;
} finally {
  await browser.close();
}
if (wrong) fail(script, wrong);
