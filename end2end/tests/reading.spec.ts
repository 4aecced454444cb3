import { expect, test } from '@playwright/test';
import { createBoard, send } from './support';

// A contestant reading boards: find me, the member page, pinned paging while the board moves,
// the period switcher. Screenshots are kept in artifacts/.

test('"Find me" shows the member among its neighbours, highlighted, even without JavaScript', async ({ page, request }) => {
  const html = await (await request.get('/b/demo?find=u1009')).text();
  expect(html).toMatch(/<tr[^>]*data-member="u1009"[^>]*class="me"|<tr[^>]*class="me"[^>]*data-member="u1009"/);

  await page.goto('/b/demo');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Find me').fill('u1009');
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page).toHaveURL(/\?find=u1009(&|$)/);
  const me = page.locator('tr.me');
  await expect(me).toHaveAttribute('data-member', 'u1009');
  await expect(me).toHaveAttribute('data-rank', '9');
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(11);
  await page.screenshot({ path: 'artifacts/find-me.png', fullPage: true });

  await page.getByLabel('Find me').fill('nobody');
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByTestId('find-notice')).toContainText('has the member id or a name starting with “nobody”.');
});

test('the member page explains the score with its ledger entries', async ({ page }) => {
  await page.goto('/b/demo');
  await page.locator('table.ranking').getByRole('link', { name: 'Ada Lovelace' }).click();
  await expect(page).toHaveURL(/\/b\/demo\/\d{4}-W\d{2}\/m\/u1001$/);
  await expect(page.getByTestId('rank')).toHaveText('1');
  await expect(page.getByTestId('points')).toHaveText('1\u202f420');
  const rows = page.getByRole('table', { name: 'Ledger entries, newest first' }).locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('demo-u1001-2');
  await expect(rows.nth(0)).toContainText('+473');
  await expect(rows.nth(1)).toContainText('+947');
  await page.screenshot({ path: 'artifacts/member.png', fullPage: true });
});

test('pinned pages show no duplicates while events arrive between pages', async ({ page, request }) => {
  const key = await createBoard(request, 'e2e-pinned');
  await send(request, key, 'e2e-pinned',
    Array.from({ length: 25 }, (_, i) => ({ event_id: `p${i}`, member: `m${String(i).padStart(2, '0')}`, delta: 100 + i })));
  await page.goto('/b/e2e-pinned');
  await page.waitForLoadState('networkidle');
  await page.getByRole('button', { name: 'Pin this view' }).click();
  await expect(page).toHaveURL(/\?snap=[0-9a-f]+$/);
  const members = () => page.locator('table.ranking tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-member')));
  const first = await members();
  expect(first).toHaveLength(10);

  // The board moves: three newcomers take the lead.
  await send(request, key, 'e2e-pinned', [0, 1, 2].map((i) => ({ event_id: `n${i}`, member: `new${i}`, delta: 5000 + i })));

  await page.getByRole('link', { name: 'Next page' }).click();
  await expect(page).toHaveURL(/offset=10$/);
  await expect(page.locator('table.ranking tbody tr').first()).toHaveAttribute('data-rank', '11');
  const second = await members();
  expect(second).toHaveLength(10);
  expect(second.filter((m) => first.includes(m))).toEqual([]);
  expect(second.some((m) => m!.startsWith('new'))).toBe(false);

  // The live view has moved on.
  await page.getByRole('link', { name: 'Back to live' }).click();
  await expect(page.locator('table.ranking tbody tr').first()).toHaveAttribute('data-member', 'new2');
});

test('a keyset page link (?after=) has the same "Show more", appending the next keyset page', async ({ page }) => {
  await page.goto('/b/demo?after=');
  await page.waitForLoadState('networkidle');
  const rows = page.locator('table.ranking tbody tr');
  await expect(rows).toHaveCount(10);
  await page.getByRole('link', { name: 'Show more' }).click();
  await expect(rows).toHaveCount(20);
  const members = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-member')));
  expect(new Set(members).size).toBe(20);
});

test('the period switcher reaches earlier periods', async ({ page }) => {
  await page.goto('/b/demo');
  await expect(page.locator('p.meta .state')).toHaveText('open');
  await expect(page.locator('.countdown')).toHaveText(/\d+[dhm]/);
  // The demo's previous week is settled: its standings are read from the settlement.
  await page.locator('nav.periods a[rel="prev"]').click();
  await expect(page.locator('p.meta .state')).toHaveText('settled');
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(10);
  await page.getByRole('link', { name: 'Current period' }).click();
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(10);
});

test('without JavaScript, "Pin this view" posts a form and lands on the pinned page', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/b/demo');
  await page.getByRole('button', { name: 'Pin this view' }).click();
  await expect(page).toHaveURL(/\/b\/demo\/\d{4}-W\d{2}\?snap=[0-9a-f]+$/);
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(10);
  await page.getByRole('link', { name: 'Next page' }).click();
  await expect(page.locator('table.ranking tbody tr').first()).toHaveAttribute('data-rank', '11');
  await context.close();
});
