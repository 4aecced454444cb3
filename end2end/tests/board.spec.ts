import { expect, test, type Page } from '@playwright/test';

// The demo board (created by `laurel serve --demo` through the real write path) has ties:
// 1420, 1280, 1280, 1250 … so competition ranks start 1, 2, 2, 4.

function ranksIn(html: string): number[] {
  return [...html.matchAll(/<tr[^>]*data-rank="(\d+)"/g)].map((m) => Number(m[1]));
}

/** Collects uncaught page errors and console errors (a failed hydration shows up here). */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  return errors;
}

test('the server-rendered HTML already holds the ranked rows', async ({ request }) => {
  const response = await request.get('/b/demo');
  expect(response.status()).toBe(200);
  const html = await response.text();
  expect(ranksIn(html).slice(0, 4)).toEqual([1, 2, 2, 4]);
  expect(ranksIn(html)).toHaveLength(10);
  expect(html).toContain('Ada Lovelace');
  expect(html).toContain('data-member="u1001"');
  // The page asks for the contestants' hydration bundle that the binary embeds, by content-hashed
  // names, and the stylesheet.
  const assets = [...html.matchAll(/(?:href|src)="(\/pkg\/[^"]+)"/g)].map((m) => m[1]);
  expect(assets).toEqual(expect.arrayContaining([
    expect.stringMatching(/^\/pkg\/laurel\.[0-9a-f]{16}\.js$/),
    expect.stringMatching(/^\/pkg\/laurel\.[0-9a-f]{16}\.wasm$/),
    expect.stringMatching(/^\/pkg\/laurel\.[0-9a-f]{16}\.css$/),
  ]));
  for (const asset of assets) {
    expect((await request.get(asset)).status(), asset).toBe(200);
  }
});

test('after hydration, "Show more" appends rows through a server function without a reload', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/b/demo');
  await page.waitForLoadState('networkidle'); // the wasm bundle has loaded and hydrated
  const rows = page.locator('table.ranking tbody tr');
  await expect(rows).toHaveCount(10);
  await page.evaluate(() => ((window as any).__sameDocument = true));

  // The one pager reads keyset pages: no member twice, however the board moves.
  const serverCall = page.waitForRequest((r) => r.url().includes('/api/read_after') && r.method() === 'POST');
  await page.getByRole('link', { name: 'Show more' }).click();
  await serverCall;
  await expect(rows).toHaveCount(20);

  expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/b/demo');
  await expect(rows.nth(10)).toHaveAttribute('data-rank', '11');
  const members = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-member')));
  expect(new Set(members).size).toBe(20);
  // One paging control: no "Stable pages" / "Load more" beside it.
  await expect(page.getByRole('link', { name: /Stable pages|Load more/ })).toHaveCount(0);
  // The next page continues after the last row (the demo has 25 members or more).
  await page.getByRole('link', { name: 'Show more' }).click();
  await expect.poll(() => rows.count()).toBeGreaterThan(20);
  const all = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-member')));
  expect(new Set(all).size, 'no member twice').toBe(all.length);
  await page.screenshot({ path: 'artifacts/board.png', fullPage: true });
  expect(errors).toEqual([]);
});

test('without JavaScript, "Show more" is a link the server renders', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/b/demo');
  await page.getByRole('link', { name: 'Show more' }).click();
  await expect(page).toHaveURL(/\/b\/demo\?show=20$/);
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(20);
  await context.close();
});

test('the home page lists the demo board', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: 'Weekly study points (demo)' }).click();
  await expect(page).toHaveURL(/\/b\/demo$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Weekly study points (demo)');
});

test('an unknown board answers 404 with a readable message', async ({ request, page }) => {
  expect((await request.get('/b/no-such-board')).status()).toBe(404);
  expect((await request.get('/b/Not%20A%20Slug')).status()).toBe(404);
  expect((await request.get('/no/such/page')).status()).toBe(404);
  await page.goto('/b/no-such-board');
  await expect(page.getByRole('alert')).toContainText('There is no board no-such-board.');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Not found');
  await expect(page).toHaveTitle('Not found · Laurel');
});

test('health and readiness answer', async ({ request }) => {
  const health = await request.get('/healthz');
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ status: 'alive' });
  const ready = await request.get('/readyz');
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toMatchObject({ status: 'ready', ledger: 'ok', redis: 'ok' });
});

test('the board fits a phone screen without sideways scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/b/demo');
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(10);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: 'artifacts/board-phone.png', fullPage: true });
});
