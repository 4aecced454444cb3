import { expect, test } from '@playwright/test';
import { createAdmin, createBoard, send } from './support';

// The board as it was (issue 46): `?at=` shows the ranking the ledger had at an instant, its time
// slider moves a label in the browser and sends `?at=` without JavaScript's help, and the page
// says which moment it shows and leads back to the live board.

const slug = 'e2e-then';
const password = 'the board as it stood';
let admin = 'then-admin';

// An account per worker: a worker started again after a failure runs this again.
test.beforeAll(({}, info) => {
  admin = `then-admin-${info.workerIndex}`;
  createAdmin(admin, password);
});

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

test('in the console, each ledger entry of a member leads to the board as it stood when it was recorded', async ({ page }) => {
  const key = await createBoard(page.request, `${slug}-dispute`);
  await send(page.request, key, `${slug}-dispute`, [{ event_id: 'd1', member: 'first', delta: 7 }]);
  await new Promise((r) => setTimeout(r, 50));
  await send(page.request, key, `${slug}-dispute`, [{ event_id: 'd2', member: 'second', delta: 9 }]);
  const period = (await (await page.request.get(`/api/v1/boards/${slug}-dispute`)).json()).current_period as string;

  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill(admin);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText(`Signed in as admin:${admin}`);
  await page.goto(`/admin/b/${slug}-dispute/${period}/m/first`);
  await page.waitForLoadState('networkidle');
  // first's entry was recorded before second's: the board then has first alone.
  await page.locator('tr[data-entry]').first().getByTestId('board-then').click();
  await expect(page).toHaveURL(new RegExp(`/b/${slug}-dispute/${period}\\?at=`));
  await expect(page.getByTestId('then-notice')).toContainText('1 member(s) ranked then');
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(1);
  await expect(page.locator('table.ranking tbody tr').first()).toContainText('first');
});
