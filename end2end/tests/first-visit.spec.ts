import { expect, test, type Page } from '@playwright/test';
import { createAdmin } from './support';

// What a first visit gets: a strict Content-Security-Policy that still lets the page hydrate,
// bundle files compressed at build time and cached for good, a console that no frame can show,
// and a contestants' bundle without the console in it.

/** Records every CSP violation the page reports (the event, and Chromium's console line). */
async function watchPolicy(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (m) => m.text().includes('Content Security Policy') && violations.push(m.text()));
  await page.exposeFunction('__cspViolation', (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as any).__cspViolation(`${e.violatedDirective} blocked ${e.blockedURI}`));
  });
  return violations;
}

/** The bundle files a page asks for: [js, wasm]. */
async function bundleOf(request: import('@playwright/test').APIRequestContext, path: string): Promise<[string, string]> {
  const html = await (await request.get(path)).text();
  const js = html.match(/rel="modulepreload" href="(\/pkg\/[^"]+\.js)"/)?.[1];
  const wasm = html.match(/rel="preload" href="(\/pkg\/[^"]+\.wasm)"/)?.[1];
  expect(js, `${path} names its js`).toBeTruthy();
  expect(wasm, `${path} names its wasm`).toBeTruthy();
  return [js!, wasm!];
}

test('every page hydrates under the Content-Security-Policy, with no violation', async ({ page }) => {
  const violations = await watchPolicy(page);
  const password = 'first-visit-password-1';
  createAdmin('csp', password);
  for (const path of ['/', '/b/demo', '/hot/none', '/admin/login']) {
    const response = await page.goto(path);
    expect(response!.headers()['content-security-policy'], path).toMatch(/script-src 'self' 'nonce-[^']+' 'wasm-unsafe-eval'/);
    await expect(page.locator('html[data-hydrated]'), `${path} hydrates`).toBeAttached({ timeout: 15_000 });
  }
  // The console, signed in: its own bundle hydrates under the same policy.
  await page.getByLabel('Username').fill('csp');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.goto('/admin/audit');
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  expect(violations).toEqual([]);
});

test('bundle files are answered compressed as the browser asks, and cached for good', async ({ request }) => {
  const [js, wasm] = await bundleOf(request, '/b/demo');
  const css = (await (await request.get('/b/demo')).text()).match(/rel="stylesheet" href="(\/pkg\/[^"]+\.css)"/)?.[1];
  expect(css).toBeTruthy();
  for (const [file, type] of [[js, 'javascript'], [wasm, 'application/wasm'], [css!, 'text/css']]) {
    const identity = await request.get(file, { headers: { 'Accept-Encoding': 'identity' } });
    const raw = await identity.body();
    expect(identity.headers()['content-encoding'], file).toBeUndefined();
    for (const [asked, coding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip']]) {
      const res = await request.get(file, { headers: { 'Accept-Encoding': asked } });
      expect(res.status(), file).toBe(200);
      expect(res.headers()['content-encoding'], `${file} for ${asked}`).toBe(coding);
      expect(res.headers()['content-type'], file).toContain(type);
      expect(res.headers()['cache-control'], file).toBe('public, max-age=31536000, immutable');
      expect(res.headers()['vary'], file).toContain('accept-encoding');
      // Playwright decodes the body: the same bytes as the uncompressed file.
      expect((await res.body()).equals(raw), `${file} decodes to the file`).toBe(true);
    }
    // The compressed copy is what crossed the wire: much shorter than the file.
    const sent = await fetchLength(request, file, 'br');
    expect(sent, file).toBeLessThan(raw.length * 0.6);
  }
  // Pages are never cached without asking again.
  expect((await request.get('/favicon.svg')).headers()['cache-control']).toBe('no-cache');
});

/** The Content-Length of `file` answered with `coding` (the bytes sent, not decoded). */
async function fetchLength(request: import('@playwright/test').APIRequestContext, file: string, coding: string) {
  const res = await request.get(file, { headers: { 'Accept-Encoding': coding } });
  return Number(res.headers()['content-length']);
}

test('a repeat visit takes the bundle from the cache: no asset crosses the wire again', async ({ page }) => {
  await page.goto('/b/demo');
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  // Bytes that crossed the wire for bundle files (a cache hit crosses none; a revalidation
  // would cross its headers).
  const urls = new Map<string, string>();
  const crossed: string[] = [];
  cdp.on('Network.requestWillBeSent', (e: any) => urls.set(e.requestId, e.request.url));
  cdp.on('Network.loadingFinished', (e: any) => {
    const url = urls.get(e.requestId) ?? '';
    if (url.includes('/pkg/') && e.encodedDataLength > 0) crossed.push(`${url}: ${e.encodedDataLength} bytes`);
  });
  await page.goto('/b/demo?show=20');
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
  expect(urls.size, 'the repeat visit loaded something').toBeGreaterThan(0);
  expect(crossed, 'bundle bytes over the wire on a repeat visit').toEqual([]);
});

test('the console refuses to be shown in a frame', async ({ page, baseURL }) => {
  const res = await page.request.get('/admin/login');
  expect(res.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers()['x-frame-options']).toBe('DENY');
  expect(res.headers()['x-content-type-options']).toBe('nosniff');
  expect(res.headers()['referrer-policy']).toBe('same-origin');
  // A page of another origin frames the console: Chromium refuses to render it.
  await page.route('http://framer.test/', (route) =>
    route.fulfill({ contentType: 'text/html', body: `<iframe id="c" src="${baseURL}/admin/login"></iframe>` }));
  await page.goto('http://framer.test/');
  const frame = page.frameLocator('#c');
  await page.waitForTimeout(1000);
  await expect(frame.getByLabel('Username')).toHaveCount(0);
});

test("the contestants' bundle carries no console code; the console's does", async ({ request }) => {
  const [, contestant] = await bundleOf(request, '/b/demo');
  const [, console] = await bundleOf(request, '/admin/login');
  expect(contestant).not.toBe(console);
  const text = async (file: string) =>
    (await (await request.get(file, { headers: { 'Accept-Encoding': 'identity' } })).body()).toString('latin1');
  const [mine, theirs] = [await text(contestant), await text(console)];
  // Every console server function is registered under /api/admin_…; its client stub names it.
  expect(theirs).toContain('/api/admin_');
  expect(mine).not.toContain('/api/admin_');
  expect(mine).not.toContain('admin_settle');
  expect(mine.length).toBeLessThan(theirs.length * 0.8);
  // Contestant pages are server components with islands: the only server functions their bundle
  // can call are the ranking's "Show more" (keyset pages, `read_after`), and the hot page's list,
  // which its island reads again each interval while the page is open (`read_hot_list`, the
  // page's own read: the list is what changes) — none of the other pages' reads, no pin.
  for (const name of ['read_after', 'read_hot_list']) {
    expect(mine, name).toContain(`/api/${name}`);
  }
  for (const name of ['read_ranking', 'read_around', 'read_snapshot', 'read_periods', 'read_revisions',
    'read_member', 'read_boards', 'read_me', 'read_my_live', 'claim_link', 'pin_view',
    'read_ranking_distribution', 'read_leaders_chart']) {
    expect(mine, name).not.toContain(`/api/${name}`);
    expect(theirs, name).toContain(`/api/${name}`);
  }
  // Nor a router: only the console's pages route in the browser.
  expect(mine).not.toContain('leptos_router');
  expect(theirs).toContain('leptos_router');
});
