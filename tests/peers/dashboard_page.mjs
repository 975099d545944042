// Chromium (Debian's, headless, driven through playwright-core) loads the
// dashboard page and reports what it shows after each snapshot of the
// system topic: the test that runs this serves the page and the snapshots,
// and judges the figures. Prints "first: {...}" once the page has drawn one
// snapshot and "second: {...}" once it has drawn two, then saves a
// screenshot.
// Usage: node dashboard_page.mjs PORT SCREENSHOT.png
// (CHROMIUM names another browser binary than /usr/bin/chromium)
import { chromium } from 'playwright-core';
import { exitAfter, fail } from './lib/deadline.mjs';

const script = 'dashboard_page';
const [port, screenshot] = [Number(process.argv[2]), process.argv[3]];
let stage = 'chromium to start';
exitAfter(90000, script, () => stage);

// What the page shows: every figure by its data-k name, the stream's state,
// the topic table's rows, and whether each chart has drawn a line.
function figures() {
  const shown = { state: document.body.dataset.state, figures: {}, topics: [], charts: {} };
  for (const el of document.querySelectorAll('[data-k]')) shown.figures[el.dataset.k] = el.textContent;
  for (const row of document.querySelectorAll('#topics tr')) shown.topics.push([...row.cells].map((c) => c.textContent));
  for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    shown.charts[canvas.dataset.chart] = pixels.some((v, i) => i % 4 === 3 && v > 0);
  }
  shown.markup = document.querySelectorAll('#topics b').length;  // a topic name must never become markup
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
  for (const [n, label] of [[1, 'first'], [2, 'second']]) {
    stage = `snapshot ${n}`;
    await page.waitForFunction((k) => Number(document.body.dataset.snapshots || 0) >= k, n, { polling: 20, timeout: 60000 });
    console.log(`${label}: ${JSON.stringify(await page.evaluate(figures))}`);
  }
  if (errors.length) throw new Error(`the page threw: ${errors.join('; ')}`);
  stage = 'the screenshot';
  await page.screenshot({ path: screenshot });
} catch (e) {
  wrong = `${e.message} (while waiting for ${stage})`;
} finally {
  await browser.close();
}
if (wrong) fail(script, wrong);
