import { expect, test, type Page } from '@playwright/test';
import { createBoard, send } from './support';

// Rank movement since the visitor's last visit (issue 41): the browser keeps the ranks it saw
// per board and period (localStorage); on the next visit each member whose rank changed has ↑N
// or ↓N beside the rank. A first visit shows none, and a visit with no change since shows none.

const slug = `e2e-move-${Date.now()}`;
let key = '';

test.beforeAll(async ({ request }) => {
  key = await createBoard(request, slug);
  await send(request, key, slug, [
    { event_id: 'm-a', member: 'ma', delta: 30 },
    { event_id: 'm-b', member: 'mb', delta: 20 },
    { event_id: 'm-c', member: 'mc', delta: 10 },
  ]);
});

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

/** Each row's member and what its movement mark says ('' without one). */
async function moves(page: Page) {
  return page.locator('table.ranking tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [tr.getAttribute('data-member'), tr.querySelector('.move [aria-hidden]')?.textContent ?? '']),
  );
}

test('a revisit shows ↑N and ↓N for the members that moved since the last visit', async ({ page, request }) => {
  await page.goto(`/b/${slug}`);
  await hydrated(page);
  // A first visit: nothing to compare with; the ranks seen are kept.
  expect(await moves(page)).toEqual([['ma', ''], ['mb', ''], ['mc', '']]);
  const stored = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('laurel.ranks.')));
  expect(stored).toHaveLength(1);
  expect(stored[0]).toMatch(new RegExp(`^laurel\\.ranks\\.${slug}\\.\\d{4}-W\\d{2}$`));

  // mc overtakes both.
  await send(request, key, slug, [{ event_id: 'm-c2', member: 'mc', delta: 25 }]);
  await page.goto(`/b/${slug}`);
  await hydrated(page);
  await expect.poll(() => moves(page)).toEqual([['mc', '↑2'], ['ma', '↓1'], ['mb', '↓1']]);
  const up = page.locator('tr[data-member="mc"] .move');
  await expect(up).toHaveClass('move up');
  await expect(up).toContainText('up 2 places since your last visit');
  await expect(page.locator('tr[data-member="ma"] .move')).toHaveClass('move down');
  await page.screenshot({ path: 'artifacts/rank-movement.png', fullPage: true });

  // The next visit compares with this one: nothing moved since.
  await page.reload();
  await hydrated(page);
  await expect.poll(() => moves(page)).toEqual([['mc', ''], ['ma', ''], ['mb', '']]);
});
