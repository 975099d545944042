// Chromium (Debian's, headless, driven through playwright-core) loads the
// dashboard page from a real sluiced, which feeds it the system topic.
// Prints "first: {...}" once the page has drawn a snapshot, then waits
// until the page shows EXPECTED events published in all (the test
// publishes them after reading "first:"), prints "second: {...}" and saves
// a screenshot.
// Usage: node sluiced_dashboard.mjs PORT SCREENSHOT.png EXPECTED
// (CHROMIUM names another browser binary than /usr/bin/chromium)
import { chromium } from 'playwright-core';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'sluiced_dashboard';
const [port, screenshot, expected] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4])];
let stage = 'chromium to start';
exitAfter(90000, script, () => stage);

// What the page shows: every figure by its data-k name, the stream's state
// and the topic table's rows.
function figures() {
  const shown = { state: document.body.dataset.state, figures: {}, topics: [] };
  for (const el of document.querySelectorAll('[data-k]')) shown.figures[el.dataset.k] = el.textContent;
  for (const row of document.querySelectorAll('#topics tr')) shown.topics.push([...row.cells].map((c) => c.textContent));
  return shown;
}

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const browser = await chromium.launch({
  executablePath,
  args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  timeout: 30000,
}).catch((e) => fail(script, `cannot start ${executablePath}: ${e.message}`));
let wrong;
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  stage = 'the page to load';
  const response = await page.goto(`http://127.0.0.1:${port}/dashboard`);
  if (response.status() !== 200) throw new Error(`GET /dashboard: ${response.status()}`);
  stage = 'the first snapshot';
  await page.waitForFunction(() => Number(document.body.dataset.snapshots || 0) >= 1, null, { polling: 20, timeout: 60000 });
  console.log(`first: ${JSON.stringify(await page.evaluate(figures))}`);
  stage = `the page to show ${expected} published`;
  const text = expected.toLocaleString('en-US');
  await page.waitForFunction(
    (t) => document.querySelector('[data-k="published_total"]')?.textContent === t, text, { polling: 20, timeout: 60000 });
  // One snapshot more, so that the rate charts have points to draw.
  const seen = await page.evaluate(() => Number(document.body.dataset.snapshots));
  await page.waitForFunction((k) => Number(document.body.dataset.snapshots) > k, seen, { polling: 20, timeout: 60000 });
  console.log(`second: ${JSON.stringify(await page.evaluate(figures))}`);
  if (errors.length) throw new Error(`the page threw: ${errors.join('; ')}`);
  stage = 'the screenshot';
  await page.screenshot({ path: screenshot });
} catch (e) {
  wrong = `${e.message} (while waiting for ${stage})`;
} finally {
  await browser.close();
}
if (wrong) fail(script, wrong);
