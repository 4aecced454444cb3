// The first-visit measurement behind scripts/bench-first-visit: Debian's Chromium, driven by
// Playwright, opens a board page as a phone on a slow network would and reports what crossed the
// wire and when the page became interactive.
//
// usage: node scripts/bench/first-visit.mjs <page url> [runs]
// Prints one JSON object: for each profile (`browser`: what Chromium asks for; `identity`: the
// same page with compression refused, the bytes as they were before compression), the median of
// the runs of a first visit (empty cache) and of a repeat visit (same cache), each with the bytes
// transferred (headers and bodies, as DevTools counts them), the asset bytes among them, the time
// until the server-rendered rows show and the time until the page is hydrated
// (`<html data-hydrated>`, set by the browser bundle once hydration is done).
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Playwright comes from the end2end suite's packages (npm ci in end2end/).
const require = createRequire(path.join(here, '../../end2end/package.json'));
const { chromium } = require('@playwright/test');

const [url, runsArg] = process.argv.slice(2);
if (!url) {
  console.error('usage: first-visit.mjs <page url> [runs]');
  process.exit(2);
}
const runs = Number(runsArg ?? 3);

// The DevTools "Fast 3G" profile as the issue measured it: 1.6 Mbit/s down, 750 kbit/s up,
// 150 ms round trip.
const FAST_3G = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run'],
});

/** One visit in `page` (whose cache may hold an earlier visit's files). */
async function visit(page, cdp) {
  const responses = new Map();
  let transferred = 0;
  let assets = 0;
  const onResponse = (e) => responses.set(e.requestId, e.response.url);
  const onFinished = (e) => {
    transferred += e.encodedDataLength;
    if ((responses.get(e.requestId) ?? '').includes('/pkg/')) assets += e.encodedDataLength;
  };
  cdp.on('Network.responseReceived', onResponse);
  cdp.on('Network.loadingFinished', onFinished);
  const started = Date.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForSelector('table tbody tr', { timeout: 120_000 });
  const rows = Date.now() - started;
  await page.waitForSelector('html[data-hydrated]', { timeout: 120_000 });
  const hydrated = Date.now() - started;
  // Let late requests (none are expected) finish before counting.
  await page.waitForLoadState('networkidle');
  cdp.off('Network.responseReceived', onResponse);
  cdp.off('Network.loadingFinished', onFinished);
  return { transferred_bytes: transferred, asset_bytes: assets, rows_ms: rows, hydrated_ms: hydrated };
}

async function profile(acceptEncoding) {
  const first = [];
  const repeat = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 3,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', FAST_3G);
    if (acceptEncoding) await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': acceptEncoding } });
    first.push(await visit(page, cdp));
    repeat.push(await visit(page, cdp));
    await context.close();
  }
  return { first: median(first), repeat: median(repeat) };
}

/** The median of each field over the runs. */
function median(samples) {
  const out = {};
  for (const key of Object.keys(samples[0])) {
    const sorted = samples.map((s) => s[key]).sort((a, b) => a - b);
    out[key] = sorted[Math.floor((sorted.length - 1) / 2)];
  }
  return out;
}

try {
  const result = { url, runs, network: FAST_3G, browser: await profile(null), identity: await profile('identity') };
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
}
