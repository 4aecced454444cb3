import AxeBuilder from '@axe-core/playwright';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { expect, test, type Page } from '@playwright/test';

// The console's front page on the real binary: "needs attention" lists a period past its end
// plus grace, its pending late write and a reward whose delivery failed, all made by this test,
// and each link leads to the section of the period console that fixes it (the late write is
// rejected and the period settled there, and both leave the list). The boards show their
// activity as a sparkline with its numbers as text, in the server's HTML too.
//
// A failed delivery needs a reward webhook, which the suite's server has not got (its rewards
// stay pending, untried), so this spec runs a `laurel serve` of its own whose webhook nothing
// listens on. Its ledger is in the run's directory and its keys under the run's prefix: the
// global teardown removes both.

const laurel = path.resolve(__dirname, '../../target/release/laurel');
const stores = {
  ...process.env,
  LAUREL_REDIS_URL: process.env.LAUREL_TEST_REDIS_URL,
  LAUREL_DATABASE_URL: `sqlite://${process.env.LAUREL_E2E_DIR}/attention.db`,
  LAUREL_KEY_PREFIX: `${process.env.LAUREL_E2E_PREFIX}:attention`,
};
const run = (...args: string[]) => execFileSync(laurel, args, { env: stores, encoding: 'utf8' }).trim();
const password = 'attention please, console';
let server: ChildProcess | undefined;
let base = '';

/** A loopback port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

test.beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(laurel, ['serve'], {
    env: { ...stores, LAUREL_ADDR: `127.0.0.1:${port}`, LAUREL_REWARDS_WEBHOOK: 'http://127.0.0.1:1/hook' },
    stdio: 'ignore',
  });
  for (let i = 0; ; i++) {
    const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (i > 150) throw new Error('the attention server did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  execFileSync(laurel, ['admin', 'create', '--username', 'ida'], {
    env: { ...stores, LAUREL_ADMIN_PASSWORD: password },
    encoding: 'utf8',
  });
});

test.afterAll(() => {
  server?.kill('SIGTERM');
});

async function signIn(page: Page) {
  await page.goto(`${base}/admin/login`);
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('ida');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText('Signed in as admin:ida');
}

test('the attention list shows a due period, a pending late write and a failed delivery, each linked to its fix', async ({ page }) => {
  test.setTimeout(90_000);
  const auth = { Authorization: `Bearer ${run('admin', 'token')}` };
  const tag = Date.now().toString(36);
  const [late, paid] = [`e2e-att-late-${tag}`, `e2e-att-paid-${tag}`];
  for (const [slug, extra] of [[late, {}], [paid, { prizes: [{ from_rank: 1, to_rank: 1, prize: 'Gold' }] }]] as const) {
    const made = await page.request.post(`${base}/api/v1/boards`, {
      headers: auth,
      data: { slug, title: `Board ${slug}`, cadence: 'weekly', time_zone: 'UTC', operator: 'incr', tie_policy: 'shared', max_points: 100000, ...extra },
    });
    expect(made.status(), await made.text()).toBe(201);
  }

  // A write two weeks old is kept as a late write; it opens its period, long past end + grace.
  const old = new Date(Date.now() - 14 * 86_400_000).toISOString();
  const kept = await page.request.post(`${base}/api/v1/boards/${late}/events`, {
    headers: auth,
    data: { events: [{ event_id: 'old-1', member: 'u1', delta: 5, occurred_at: old }] },
  });
  expect(kept.status()).toBe(200);
  const [answer] = (await kept.json()).results;
  expect(answer.result).toBe('late');
  const duePeriod = answer.period as string;
  expect(duePeriod).toMatch(/^\d{4}-W\d\d$/);

  // Two events now on the prized board, frozen and settled: the reward's delivery to a webhook
  // nothing listens on fails, and is retried.
  const sent = await page.request.post(`${base}/api/v1/boards/${paid}/events`, {
    headers: auth,
    data: { events: [{ event_id: 'p1', member: 'u1', delta: 10 }, { event_id: 'p2', member: 'u2', delta: 3 }] },
  });
  expect((await sent.json()).results.map((r: any) => r.result)).toEqual(['applied', 'applied']);
  const paidPeriod = (await sent.json()).results[0].period as string;
  for (const step of ['freeze', 'settle']) {
    const moved = await page.request.post(`${base}/api/v1/boards/${paid}/periods/${paidPeriod}/${step}`, { headers: auth, data: {} });
    expect(moved.status(), await moved.text()).toBe(200);
  }
  const rewards = async () =>
    (await (await page.request.get(`${base}/api/v1/boards/${paid}/periods/${paidPeriod}/rewards`, { headers: auth })).json()).rewards;
  await expect.poll(async () => (await rewards())[0]?.attempts ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
  expect((await rewards())[0].status).toBe('pending');

  await signIn(page);
  await page.goto(`${base}/admin`);
  await page.waitForLoadState('networkidle');
  const list = page.getByTestId('attention');
  const item = (kind: string, board: string, period: string) =>
    list.locator(`li[data-attention="${kind}"][data-period="${board} ${period}"]`);
  await expect(item('due', late, duePeriod)).toBeVisible();
  await expect(item('late', late, duePeriod)).toContainText(`Review 1 late write of ${late} ${duePeriod}`);
  await expect(item('rewards', paid, paidPeriod)).toContainText('1 retrying after a failed attempt');
  await expect(list.locator('li[data-attention="due"]').filter({ hasText: paid })).toHaveCount(0);

  // The boards: the current period's state and the day's activity, its numbers as text.
  const paidLine = page.locator(`ul.boards li[data-board="${paid}"]`);
  await expect(paidLine.getByTestId('board-state')).toHaveText('settled');
  const spark = paidLine.locator('figure.sparkline svg[role="img"]');
  await expect(spark).toHaveAttribute('aria-label', /2 in all, at most 2 in the hour from \d\d:00, 2 so far this hour/);
  await expect(paidLine.locator('figure.sparkline table tbody tr')).toHaveCount(24);
  await expect(paidLine.locator('figure.sparkline table tbody tr').last().locator('td')).toHaveText('2');
  await expect(page.locator(`ul.boards li[data-board="${late}"] svg[role="img"]`)).toHaveAttribute('aria-label', /none$/);

  // Readable on a phone, and clean for axe.
  await page.setViewportSize({ width: 390, height: 844 });
  const fit = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    wide: [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > 391)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
  }));
  expect(fit.width, `wider than the phone: ${fit.wide.join(', ')}`).toBeLessThanOrEqual(390);
  await page.screenshot({ path: 'artifacts/console-attention-390.png', fullPage: true });
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });

  // Without JavaScript: the server's HTML already holds the list, its links and the charts.
  const html = await (await page.request.get(`${base}/admin`)).text();
  expect(html).toContain(`href="/admin/b/${late}/${duePeriod}#late"`);
  expect(html).toContain(`href="/admin/b/${paid}/${paidPeriod}#rewards"`);
  expect(html).toMatch(/<svg[^>]*role="img"/);

  // The rewards link leads to the delivery and its failed attempt.
  await item('rewards', paid, paidPeriod).getByRole('link').click();
  await expect(page).toHaveURL(`${base}/admin/b/${paid}/${paidPeriod}#rewards`);
  await expect(page.locator('#rewards')).toBeInViewport();
  const row = page.locator('table.rewards tbody tr').first();
  await expect(row).toContainText('pending');
  // This server has a webhook: no word of a missing one.
  await expect(page.getByTestId('no-webhook')).toHaveCount(0);
  await expect(row).not.toContainText('no webhook');
  await row.locator('summary').click();
  await expect(row.locator('ul.attempts li').first()).toBeVisible();

  // The late-write link leads to its review: rejected there (previewed, then applied), it leaves
  // the list. The scheduler freezes the due period within a tick; a freeze between the preview and
  // the apply rightly makes the preview stale, so the review starts once it has happened.
  const dueState = async () =>
    ((await (await page.request.get(`${base}/api/v1/boards/${late}/periods`)).json()) as any[]).find((p) => p.period === duePeriod)?.state;
  await expect.poll(dueState, { timeout: 20_000 }).toBe('frozen');
  await page.goto(`${base}/admin`);
  await item('late', late, duePeriod).getByRole('link').click();
  await expect(page).toHaveURL(`${base}/admin/b/${late}/${duePeriod}#late`);
  await page.waitForLoadState('networkidle');
  const pending = page.locator('table.late tbody tr').filter({ hasText: 'pending' });
  await expect(pending).toHaveCount(1);
  await pending.getByPlaceholder('reason').fill('two weeks late');
  await pending.getByRole('button', { name: 'Reject…' }).click();
  await page.getByTestId('preview').locator('button[data-confirm="apply"]').click();
  await expect(page.getByTestId('outcome').filter({ hasText: 'Applied' })).toBeVisible();
  await page.goto(`${base}/admin`);
  await expect(item('late', late, duePeriod)).toHaveCount(0);

  // The due link leads to the period's lifecycle: the scheduler froze it, and settling it there
  // takes it off the list.
  await expect(async () => {
    await page.goto(`${base}/admin`);
    await expect(item('due', late, duePeriod)).toContainText(`Settle ${late} ${duePeriod}`, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await item('due', late, duePeriod).getByRole('link').click();
  await expect(page).toHaveURL(`${base}/admin/b/${late}/${duePeriod}`);
  await expect(page.getByTestId('state')).toHaveText('frozen');
  await page.waitForLoadState('networkidle');
  const settle = page.locator('details[data-step="Settle…"]');
  await settle.locator('summary').click();
  await settle.locator('button[data-confirm="settle"]').click();
  await expect(page.getByTestId('state')).toHaveText('settled');
  await page.goto(`${base}/admin`);
  await expect(item('due', late, duePeriod)).toHaveCount(0);
  await expect(item('rewards', paid, paidPeriod)).toBeVisible();
});
