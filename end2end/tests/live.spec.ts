import { expect, test, type Page } from '@playwright/test';
import { createBoard, send } from './support';

// The board page's live table: after hydration it follows the period's stream
// (GET …/periods/{period}/stream, Server-Sent Events) and updates rows in place.

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  return errors;
}

test('a board page updates without a reload when an event is ingested', async ({ page, request }) => {
  const slug = `live-${Date.now()}`;
  const key = await createBoard(request, slug);
  await send(request, key, slug, [
    { event_id: 'a1', member: 'ann', delta: 30 },
    { event_id: 'b1', member: 'bob', delta: 20 },
  ]);
  const errors = watchErrors(page);
  const stream = page.waitForRequest((r) => r.url().includes(`/api/v1/boards/${slug}/periods/`) && r.url().includes('/stream?limit='));
  await page.goto(`/b/${slug}`);
  await stream;
  const status = page.getByTestId('live-status');
  await expect(status).toBeVisible();
  await expect(page.getByTestId('live-state')).toHaveText('open');
  await page.evaluate(() => ((window as any).__sameDocument = true));

  const rows = page.locator('table.ranking tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-member', 'ann');

  // bob overtakes ann: the rows change in place and bob's row is marked as moved up.
  await send(request, key, slug, [{ event_id: 'b2', member: 'bob', delta: 25 }]);
  await expect(rows.nth(0)).toHaveAttribute('data-member', 'bob', { timeout: 3000 });
  await expect(rows.nth(0).locator('td.points')).toHaveText('45');
  await expect(rows.nth(0)).toHaveClass(/moved-up/);
  await expect(rows.nth(1)).toHaveAttribute('data-member', 'ann');
  await expect(rows.nth(1)).toHaveAttribute('data-rank', '2');

  // A new member enters the table.
  await send(request, key, slug, [{ event_id: 'c1', member: 'cy', delta: 1 }]);
  await expect(rows).toHaveCount(3, { timeout: 3000 });
  await expect(rows.nth(2)).toHaveAttribute('data-member', 'cy');

  expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);
  await page.screenshot({ path: 'artifacts/live.png', fullPage: true });
  expect(errors).toEqual([]);
});

test('without JavaScript the board page is the server-rendered table, with no live line', async ({ browser, request }) => {
  const slug = `live-nojs-${Date.now()}`;
  const key = await createBoard(request, slug);
  await send(request, key, slug, [{ event_id: 'a1', member: 'ann', delta: 3 }]);
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`/b/${slug}`);
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(1);
  await expect(page.getByTestId('live-status')).toBeHidden();
  await context.close();
});
