import { expect, test } from '@playwright/test';
import { createBoard, send } from './support';

// The board as it was (issue 46): `?at=` shows the ranking the ledger had at an instant, its time
// slider moves a label in the browser and sends `?at=` without JavaScript's help, and the page
// says which moment it shows and leads back to the live board.

const slug = 'e2e-then';

test('the time slider shows the board as it stood at a moment, and the way back', async ({ page }) => {
  const key = await createBoard(page.request, slug);
  await send(page.request, key, slug, [
    { event_id: 't1', member: 'early', delta: 10 },
    { event_id: 't2', member: 'steady', delta: 5 },
  ]);
  await new Promise((r) => setTimeout(r, 50));
  const between = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 50));
  await send(page.request, key, slug, [
    { event_id: 't3', member: 'late', delta: 30 },
    { event_id: 't4', member: 'steady', delta: 20 },
  ]);

  // Live: late 30, steady 25, early 10. Then: early 10, steady 5, and no "late".
  await page.goto(`/b/${slug}?at=${encodeURIComponent(between)}`);
  await expect(page.getByTestId('then-notice')).toContainText('2 member(s) ranked then');
  const rows = page.locator('table.ranking tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('early');
  await expect(rows.nth(0)).toContainText('10');
  await expect(rows.nth(1)).toContainText('steady');
  await expect(rows.nth(1)).toContainText('5');

  // The server's HTML already holds the board then (no JavaScript needed).
  const html = await (await page.request.get(`/b/${slug}?at=${encodeURIComponent(between)}`)).text();
  expect(html).toContain('data-testid="then-notice"');
  expect(html).not.toContain('data-member="late"');

  // The slider: its label follows it in the browser; sent, the board at the period's start is empty.
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  const slider = page.getByTestId('then-slider');
  const label = page.getByTestId('then-label');
  const min = (await slider.getAttribute('min'))!;
  // Until it moves, the label names the moment shown.
  await expect(label).toHaveText(/^[A-Z][a-z]{2} \d{4}-\d\d-\d\d \d\d:\d\d$/);
  const before = await label.textContent();
  await slider.fill(min);
  await expect(label).not.toHaveText(before!);
  await expect(label).toHaveText(/^Mon \d{4}-\d\d-\d\d 00:00$/);
  await page.getByRole('button', { name: 'Show the board then' }).click();
  await expect(page).toHaveURL(new RegExp(`\\?at=${min}$`));
  await expect(page.getByTestId('then-notice')).toContainText('0 member(s) ranked then');

  // And back to the live board.
  await page.getByTestId('then-back').click();
  await expect(page).toHaveURL(new RegExp(`/b/${slug}/\\d{4}-W\\d\\d$`));
  await expect(page.locator('table.ranking tbody tr').first()).toContainText('late');
});
