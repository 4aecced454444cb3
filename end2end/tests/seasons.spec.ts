import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { cli, createAdmin, createBoard, send } from './support';

// Seasons on the pages (issue 45), on the real binary: a season made of a daily board's
// yesterday and today, `best` of 1. The season's board page ranks the members by what the rule
// keeps, a moment after the writes; the member page explains the season total period by period
// (each period links to the member's page there; a period without points says so), and the board
// page shows each row's total period by period; writing to
// the season is refused; the page passes axe. In the console an admin creates a season from the
// form (a refused field is shown beside it) and its period console lists its weeks with their
// states.

const source = `e2e-src-${Date.now()}`;
const season = `e2e-season-${Date.now()}`;
let today = '';
let yesterday = '';

test.beforeAll(async ({ request }) => {
  createAdmin('sol', 'seasons come and go');
  const key = await createBoard(request, source, { cadence: 'daily' });
  today = (await (await request.get(`/api/v1/boards/${source}`)).json()).current_period;
  const day = new Date(`${today}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - 1);
  yesterday = day.toISOString().slice(0, 10);
  const admin = cli('admin', 'token');
  const created = await request.post('/api/v1/boards', {
    headers: { Authorization: `Bearer ${admin}` },
    data: {
      slug: season, title: 'Spring season', cadence: 'season', source,
      periods: [yesterday, today], rule: { kind: 'best', k: 1 }, tie_policy: 'shared',
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  await send(request, key, source, [
    { event_id: 'a1', member: 'ann', delta: 30 },
    { event_id: 'b1', member: 'bob', delta: 50 },
  ]);
});

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
}

test("a season's page ranks what its rule keeps, and its member page says why", async ({ page, request }) => {
  // The season follows its weeks a moment after a write.
  await expect.poll(async () => {
    const top = await (await request.get(`/api/v1/boards/${season}/periods/current/top`)).json();
    return top.entries?.map((e: any) => [e.member, e.points]);
  }).toEqual([['bob', 50], ['ann', 30]]);

  await page.goto(`/b/${season}`);
  await hydrated(page);
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(2);
  await expect(page.locator('table.ranking tbody tr').first()).toHaveAttribute('data-member', 'bob');
  // Below the ranking, each row's season total period by period.
  const rows = page.getByTestId('season-rows');
  await expect(rows.locator('thead th')).toHaveText(['Member', yesterday, today, 'Season']);
  await expect(rows.locator('tbody tr')).toHaveCount(2);
  await expect(rows.locator('tbody tr[data-member="bob"] td')).toHaveText(['—', '50', '50']);
  const boardAxe = await new AxeBuilder({ page }).analyze();
  expect(boardAxe.violations, JSON.stringify(boardAxe.violations, null, 2)).toEqual([]);

  await page.goto(`/b/${season}/current/m/ann`);
  await hydrated(page);
  const why = page.getByTestId('season-why');
  await expect(why.locator('caption')).toContainText('best periods');
  await expect(why.locator('tbody tr')).toHaveCount(2);
  const [first, second] = [why.locator('tbody tr').nth(0), why.locator('tbody tr').nth(1)];
  await expect(first).toContainText(yesterday);
  await expect(first).toContainText('no points');
  await expect(second).toContainText('#2 with 30');
  await expect(second.getByRole('link', { name: today })).toHaveAttribute('href', `/b/${source}/${today}/m/ann`);
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations, JSON.stringify(axe.violations, null, 2)).toEqual([]);
});

test('writing to a season is refused with a reason', async ({ request }) => {
  const key = cli('apikey', 'create', '--board', season);
  const res = await request.post(`/api/v1/boards/${season}/events`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { event_id: 'x1', member: 'ann', delta: 5 },
  });
  expect(res.status()).toBe(409);
  expect((await res.json()).error).toBe('season_board');
});

test('an admin creates a season in the console and sees its weeks with their states', async ({ page }) => {
  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('sol');
  await page.getByLabel('Password').fill('seasons come and go');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await page.waitForLoadState('networkidle');
  const form = page.getByTestId('new-season');
  await form.getByLabel('Slug').fill(`${season}-c`);
  await form.getByLabel('Title').fill('Console season');
  await form.getByLabel('Made of the board').fill(source);
  await form.getByLabel('Or these periods').fill(`${yesterday}, ${today}`);
  await form.getByLabel('Rule').selectOption('best');
  // best without k: refused beside the field, nothing created.
  await form.getByRole('button', { name: 'Create season' }).click();
  await expect(form.getByText('Give k, the number of best periods that count.')).toBeVisible();
  await form.getByLabel('k (best)').fill('1');
  await form.getByRole('button', { name: 'Create season' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/b/${season}-c/`));
  const weeks = page.getByTestId('season-weeks');
  await expect(weeks.locator('li')).toHaveCount(2);
  await expect(weeks.locator('li').first()).toContainText(`${yesterday} (open)`);
  await expect(weeks).toContainText('0 of 2 settled');
});
