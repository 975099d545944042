// Chromium (Debian's, headless, driven through playwright-core) against
// sluiced with auth.mode=jwt, the token in an HttpOnly cookie as a site
// would set it at login: the page's own script cannot read the token, and
// the browser sends it with the EventSource and the WebSocket by itself.
// With the cookie, both receive an event published with a bearer token;
// the EventSource is refused a topic the token does not grant; without the
// cookie, the EventSource is refused (a browser does not retry a 401) and
// the WebSocket is closed with 4401.
// The page is served by Playwright at sluiced's origin, so both are
// same-origin, as on a site that sluiced sits behind.
// Usage: node chromium_cookie.mjs PORT TOKEN (the token grants subscribe
// and publish on "news" only; CHROMIUM names another browser binary)
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'chromium_cookie';
const port = Number(process.argv[2]);
const token = process.argv[3];
const origin = `http://127.0.0.1:${port}`;
const pageUrl = `${origin}/peer/eventsource.html`;
let stage = 'chromium to start';
exitAfter(60000, script, () => stage);

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const browser = await chromium.launch({
  executablePath,
  args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync',
    '--disable-features=LocalNetworkAccessChecksWebSockets'],
  timeout: 30000,
}).catch((e) => fail(script, `cannot start ${executablePath}: ${e.message}`));

// A page at sluiced's origin in a context of its own: with the login cookie
// when `cookie` is true, with none otherwise.
async function openPage(cookie) {
  const context = await browser.newContext();
  if (cookie) {
    await context.addCookies([{ name: 'sluice_token', value: token, url: origin, httpOnly: true, sameSite: 'Strict' }]);
  }
  const page = await context.newPage();
  await page.route(pageUrl, (route) => route.fulfill({
    path: fileURLToPath(new URL('eventsource.html', import.meta.url)),
    contentType: 'text/html; charset=utf-8',
  }));
  await page.goto(pageUrl);
  await page.unroute(pageUrl);
  return page;
}

// Opens a WebSocket on the page; what it receives and how it closes are
// kept on window.socket.
function openSocket(page, path) {
  return page.evaluate((p) => {
    window.socket = { opened: false, messages: [], closed: null };
    const ws = new WebSocket(`ws://${location.host}${p}`);
    ws.onopen = () => { socket.opened = true; };
    ws.onmessage = (e) => socket.messages.push(String(e.data));
    ws.onclose = (e) => { socket.closed = { code: e.code, reason: e.reason }; };
    socket.close = () => ws.close(1000);
  }, path);
}

async function publish(body) {
  const reply = await fetch(`${origin}/pub/news`, {
    method: 'POST', body, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
  });
  if (reply.status !== 200) fail(script, `publish answered ${reply.status} ${await reply.text()}`);
}

let wrong;
try {
  stage = 'the page with the cookie';
  const withCookie = await openPage(true);
  if (await withCookie.evaluate(() => document.cookie.includes('sluice_token'))) {
    wrong = 'the page script can read the HttpOnly token';
  }
  stage = 'the EventSource and WebSocket with the cookie to open';
  await withCookie.evaluate(() => startPeer('/sse/news'));
  await openSocket(withCookie, '/ws/news');
  await withCookie.waitForFunction(() => peer.opens > 0 && socket.opened, null, { polling: 20, timeout: 20000 });
  stage = 'the event on both';
  await publish('through the cookie');
  await withCookie.waitForFunction(
    () => peer.events.length > 0 && socket.messages.length > 0, null, { polling: 20, timeout: 20000 });
  const got = await withCookie.evaluate(() => {
    peer.close();
    socket.close();
    return { sse: peer.events[0].data, ws: socket.messages[0] };
  });
  if (got.sse !== 'through the cookie') wrong = `EventSource got ${got.sse}`;
  if (!got.ws.includes('through the cookie')) wrong = `WebSocket got ${got.ws}`;

  stage = 'an ungranted topic with the cookie to be refused';
  await withCookie.evaluate(() => startPeer('/sse/prices'));
  await withCookie.waitForFunction(() => peer.errors > 0, null, { polling: 20, timeout: 20000 });
  const ungranted = await withCookie.evaluate(() => ({ opens: peer.opens, closed: peer.state() === 2 }));

  stage = 'the page without the cookie to be refused';
  const without = await openPage(false);
  await without.evaluate(() => startPeer('/sse/news'));
  await openSocket(without, '/ws/news');
  await without.waitForFunction(() => peer.errors > 0 && socket.closed !== null, null,
    { polling: 20, timeout: 20000 });
  const refused = await without.evaluate(() => ({ opens: peer.opens, closed: peer.state() === 2, ws: socket.closed }));

  if (ungranted.opens !== 0 || !ungranted.closed) wrong = `ungranted topic: ${JSON.stringify(ungranted)}`;
  if (refused.opens !== 0 || !refused.closed) wrong = `EventSource without the cookie: ${JSON.stringify(refused)}`;
  if (refused.ws.code !== 4401) wrong = `WebSocket without the cookie closed ${JSON.stringify(refused.ws)}, not 4401`;
  if (!wrong) {
    console.log(`${script}: with the HttpOnly cookie EventSource and WebSocket got the event, ungranted topic ` +
      `refused, without it EventSource refused and WebSocket closed 4401 (Chromium ${browser.version()})`);
  }
} catch (e) {
  wrong = `${e.message} (while waiting for ${stage})`;
} finally {
  await browser.close();
}
if (wrong) fail(script, wrong);
