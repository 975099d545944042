// Chromium's own EventSource (Debian's chromium, headless, driven through
// playwright-core, which never downloads a browser) resumes from
// Last-Event-ID after sluiced cuts it off as a slow consumer: every event
// arrives exactly once, in order, across the reconnects (lib/resume.mjs).
// sluiced serves no files, so Playwright answers the request for the page
// itself, at sluiced's origin, and then stops intercepting: the page's
// EventSource talks to sluiced directly, with no CORS involved.
// Usage: node chromium_eventsource.mjs PORT   (sluiced set up as lib/resume.mjs says;
// CHROMIUM names another browser binary than /usr/bin/chromium)
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { exitAfter, fail } from './lib/deadline.mjs';
import { publishAll } from './lib/publisher.mjs';
import { checkResume, kBurst, resumeBodies } from './lib/resume.mjs';

const script = 'chromium_eventsource';
const port = Number(process.argv[2]);
const topic = 'peer-chromium';
const pageUrl = `http://127.0.0.1:${port}/peer/eventsource.html`;
const bodies = resumeBodies();
let stage = 'chromium to start';
exitAfter(60000, script, () => stage);

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const browser = await chromium.launch({
  executablePath,
  args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  timeout: 30000,
}).catch((e) => fail(script, `cannot start ${executablePath}: ${e.message}`));
let wrong;
try {
  const page = await browser.newPage();
  stage = 'the page to load';
  await page.route(pageUrl, (route) => route.fulfill({
    path: fileURLToPath(new URL('eventsource.html', import.meta.url)),
    contentType: 'text/html; charset=utf-8',
  }));
  await page.goto(pageUrl);
  await page.unroute(pageUrl);

  stage = 'the stream to open';
  await page.evaluate((path) => startPeer(path), `/sse/${topic}`);
  await page.waitForFunction(() => peer.opens > 0, null, { polling: 20, timeout: 20000 });
  stage = 'the publisher';
  await publishAll(port, topic, bodies, kBurst);
  stage = 'every event';
  await page.waitForFunction((n) => peer.events.length >= n || peer.reset !== null, bodies.length,
    { polling: 20, timeout: 20000 });
  const peer = await page.evaluate(() => {
    peer.close();
    return { opens: peer.opens, events: peer.events, reset: peer.reset };
  });
  wrong = peer.reset !== null ? `told to reset: ${peer.reset}` : checkResume(peer.events, peer.opens, bodies);
  if (!wrong) {
    console.log(`${script}: ${bodies.length} events exactly once, in order, over ${peer.opens} connections ` +
      `(Chromium ${browser.version()})`);
  }
} catch (e) {
  wrong = `${e.message} (while waiting for ${stage})`;
} finally {
  await browser.close();
}
if (wrong) fail(script, wrong);
