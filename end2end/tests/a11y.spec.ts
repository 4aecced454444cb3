import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { cli, createAdmin, createBoard, send } from './support';

// Accessibility: every page, hydrated, at a desktop and a phone width, has no serious or critical
// axe-core violation (WCAG 2.0/2.1 A and AA rules); a console step can be run with the keyboard
// alone, with the focus visible. Screenshots of each page at both widths go to artifacts/.

const widths = [1280, 390];
const password = 'a11y-console-password';
let admin = 'a11y';
const hotSlug = 'e2e-a11y-hot';
const keySlug = 'e2e-a11y-keys';

// An account per worker: a worker started again after a failure runs this again.
test.beforeAll(({}, info) => {
  admin = `a11y-${info.workerIndex}`;
  createAdmin(admin, password);
});

/** Waits for the bundle to hydrate the page (the marker `frontend` sets) and the network to rest. */
async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

/** Runs axe on the page as it is now, saves a screenshot, and fails on a serious or critical violation. */
async function audit(page: Page, name: string, width: number) {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  await page.screenshot({ path: `artifacts/a11y-${name}-${width}.png`, fullPage: true });
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const found = violations.map((v) => `${v.id} ${v.impact} ${v.nodes.length}`);
  const where = severe.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  // Soft: every page is audited and reported, the test fails at its end if any page failed.
  expect.soft(severe, `${name} at ${width} px: ${found.join(', ')}\n${where.join('\n')}`).toEqual([]);
}

/**
 * Visits `path` at each width, after hydration, and audits it; with `open`, audits it again with
 * every disclosure (the console's steps and panels) open, so the fields inside are checked too.
 */
async function visit(page: Page, name: string, path: string, open = false) {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    const response = await page.goto(path);
    expect(response, path).not.toBeNull();
    await hydrated(page);
    await audit(page, name, width);
    if (open) {
      await page.locator('details').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      await audit(page, `${name}-open`, width);
    }
  }
}

async function signIn(page: Page) {
  await page.goto('/admin/login');
  await hydrated(page);
  await page.getByLabel('Username').fill(admin);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText(`Signed in as admin:${admin}`);
}

/** A hot board with a published list (the server's snapshot job publishes every 5 s). */
async function hotBoard(request: APIRequestContext) {
  const token = cli('admin', 'token');
  const created = await request.post('/api/v1/boards', {
    headers: { Authorization: `Bearer ${token}` },
    data: {
      slug: hotSlug, title: 'Trending now', cadence: 'hot', bucket_seconds: 60, window_buckets: 10,
      ttl_seconds: 900, snapshot_seconds: 5,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  for (const [member, times] of [['air fryer', 2], ['standing desk', 1]] as const) {
    for (let i = 0; i < times; i++) {
      const hit = await request.post(`/api/v1/boards/${hotSlug}/hits`, {
        headers: { Authorization: `Bearer ${token}` },
        data: { member },
      });
      expect(hit.status()).toBe(200);
    }
  }
  await expect
    .poll(async () => (await (await request.get(`/api/v1/boards/${hotSlug}/hot/top`)).json()).entries.length, { timeout: 15_000 })
    .toBe(2);
}

test('the contestants\' pages have no serious or critical axe violation at 1280 and 390 px', async ({ page, request, baseURL }) => {
  test.setTimeout(120_000);
  await visit(page, 'home', '/');
  await visit(page, 'board', '/b/demo');
  await visit(page, 'board-find', '/b/demo?find=u1001');
  await visit(page, 'board-after', '/b/demo?after=');
  await visit(page, 'board-then', '/b/demo?at=2999-01-01T00:00:00Z');

  // A pinned view, reached through the "Pin this view" form.
  await page.goto('/b/demo');
  await hydrated(page);
  await page.getByRole('button', { name: 'Pin this view' }).click();
  await expect(page).toHaveURL(/\?snap=[0-9a-f]+$/);
  await visit(page, 'board-pinned', page.url());

  await visit(page, 'member', '/b/demo/current/m/u1001');
  // The demo's other boards: equal points under first_reached, and a hot board's hours of hits.
  await visit(page, 'board-first-reached', '/b/demo-sprint');
  await visit(page, 'hot-demo', '/hot/demo-hot');
  await hotBoard(request);
  await visit(page, 'hot', `/hot/${hotSlug}`);
  await visit(page, 'me', cli('contestant-link', '--member', 'u1001', '--hours', '1', '--base-url', baseURL!));

  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    const response = await page.goto('/b/no-such-board');
    expect(response!.status()).toBe(404);
    await hydrated(page);
    await audit(page, 'not-found', width);
  }
});

test('the console\'s pages have no serious or critical axe violation at 1280 and 390 px', async ({ page, request }) => {
  test.setTimeout(120_000);
  await visit(page, 'login', '/admin/login');
  // A board of its own with a live key, so the keys page lists a row with its revoke form.
  await createBoard(request, keySlug);
  await signIn(page);
  await visit(page, 'console', '/admin', true);
  await visit(page, 'console-period', '/admin/b/demo/current', true);
  await visit(page, 'console-member', '/admin/b/demo/current/m/u1001', true);
  await visit(page, 'console-audit', '/admin/audit');
  await visit(page, 'console-keys', '/admin/keys', true);
  await visit(page, 'console-hot', '/admin/hot/demo-hot');
});

test('a settled period\'s pages have no serious or critical axe violation at 1280 and 390 px', async ({ page, request }) => {
  test.setTimeout(90_000);
  const slug = 'e2e-a11y-settled';
  const key = await createBoard(request, slug, { prizes: [{ from_rank: 1, to_rank: 1, prize: 'Gold' }] });
  await send(request, key, slug, [
    { event_id: 's1', member: 's1', delta: 30 },
    { event_id: 's2', member: 's2', delta: 20 },
  ]);
  const period = (await (await request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  await signIn(page);
  await page.goto(`/admin/b/${slug}/current`);
  await hydrated(page);
  for (const [label, name, state] of [['Freeze…', 'freeze', 'frozen'], ['Settle…', 'settle', 'settled']]) {
    const panel = page.locator(`details[data-step="${label}"]`);
    await panel.locator('summary').click();
    await panel.locator(`button[data-confirm="${name}"]`).click();
    await expect(page.getByTestId('state')).toHaveText(state);
  }
  // The console's settlement (digest, standings, prizes, rewards) and the public settled board.
  await visit(page, 'console-settled', `/admin/b/${slug}/${period}`, true);
  await visit(page, 'board-settled', `/b/${slug}/${period}`);
  await visit(page, 'member-settled', `/b/${slug}/${period}/m/s1`);
});

test('a console step is opened, given a reason and confirmed with the keyboard alone', async ({ page, request }) => {
  const slug = 'e2e-a11y-keyboard';
  const key = await createBoard(request, slug);
  await send(request, key, slug, [{ event_id: 'k1', member: 'k1', delta: 10 }]);
  await signIn(page);
  await page.goto(`/admin/b/${slug}/current`);
  await hydrated(page);
  await expect(page.getByTestId('state')).toHaveText('open');

  /** Presses Tab until `target` has the focus (at most `limit` times); fails otherwise. */
  async function tabTo(target: ReturnType<Page['locator']>, limit = 80) {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press('Tab');
      if (await target.evaluate((el) => el === document.activeElement)) return;
    }
    throw new Error(`${target} was not reached with Tab`);
  }
  /** The focused element shows an outline of at least 2 px: the focus is visible. */
  async function focusVisible(target: ReturnType<Page['locator']>) {
    const outline = await target.evaluate((el) => {
      const style = getComputedStyle(el);
      return { matches: el.matches(':focus-visible'), style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(outline.matches, 'the element matches :focus-visible').toBe(true);
    expect(outline.style, 'the focused element has an outline').not.toBe('none');
    expect(outline.width, 'the outline is at least 2 px wide').toBeGreaterThanOrEqual(2);
  }

  const panel = page.locator('details[data-step="Freeze…"]');
  const summary = panel.locator('summary');
  await tabTo(summary);
  await focusVisible(summary);
  await page.keyboard.press('Enter');
  await expect(panel).toHaveAttribute('open', '');
  await expect(panel).toContainText(/kept as late writes/);
  await audit(page, 'console-step-open', 1280);

  const reason = panel.getByLabel('Reason');
  await tabTo(reason, 10);
  await focusVisible(reason);
  await page.keyboard.type('keyboard freeze');
  const confirm = panel.locator('button[data-confirm="freeze"]');
  await tabTo(confirm, 10);
  await focusVisible(confirm);
  await page.screenshot({ path: 'artifacts/a11y-keyboard-confirm.png', fullPage: true });
  await page.keyboard.press('Space');

  await expect(page.getByTestId('outcome')).toHaveText(/^\d{4}-W\d{2} is now frozen\.$/);
  await expect(page.getByTestId('state')).toHaveText('frozen');
  await audit(page, 'console-step-done', 1280);
  // The step's reason is in the audit trail.
  await page.goto(`/admin/audit?board=${slug}`);
  await expect(page.locator('table.audit tbody')).toContainText('keyboard freeze');
});
