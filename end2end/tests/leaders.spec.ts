import { expect, test, type Page } from '@playwright/test';
import { createAdmin, createBoard, send } from './support';

// Leaders on the console's period page come in pages of 20: "Ranks 1–20 of 25" in the table's
// caption, "Next 20" to the second page (a URL, `?leaders=20`), which has no "Next" and leads
// back with "Previous 20"; display names as on the first page. The same pages without
// JavaScript, and a page past the end says so and links back to the first.

const password = 'leaders twenty at a time';
const slug = 'e2e-leaders';
// Profiles are shared by every board: these members are this spec's own.
const member = (rank: number) => `leaders-${String(rank).padStart(2, '0')}`;
const ranks = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test.beforeAll(() => {
  createAdmin('lena', password);
});

async function shownRanks(page: Page) {
  return page.locator('table.ranking tbody tr').evaluateAll((rows) => rows.map((tr) => Number(tr.getAttribute('data-rank'))));
}

test('Leaders page through 25 members twenty at a time, by links that are URLs', async ({ page }) => {
  const key = await createBoard(page.request, slug);
  // Member n has 260 - 10n points: rank n, no ties.
  await send(page.request, key, slug, ranks(1, 25).map((n) => ({ event_id: `l${n}`, member: member(n), delta: 260 - 10 * n })));
  for (const [n, name] of [[1, 'Leader One'], [21, 'Leader Twenty-One']] as const) {
    const named = await page.request.put(`/api/v1/members/${member(n)}/profile`, {
      headers: { Authorization: `Bearer ${key}` },
      data: { display_name: name },
    });
    expect(named.status(), await named.text()).toBe(200);
  }
  const period = (await (await page.request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  const base = `/admin/b/${slug}/${period}`;

  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('lena');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText('Signed in as admin:lena');

  // From `current` (where a new board's console opens): the links keep it, so paging reads only
  // the leaders again.
  const current = `/admin/b/${slug}/current`;
  await page.goto(current);
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
  const caption = page.locator('table.ranking caption');
  const rows = page.locator('table.ranking tbody tr');
  const pages = page.getByTestId('leaders-pages');
  await expect(caption).toHaveText('Ranks 1–20 of 25');
  await expect(rows).toHaveCount(20);
  expect(await shownRanks(page)).toEqual(ranks(1, 20));
  await expect(rows.first().locator('th.name')).toHaveText('Leader One');
  await expect(pages.getByRole('link', { name: /^Previous/ })).toHaveCount(0);

  // "Next 20": in the console's router, a URL of its own.
  await pages.getByRole('link', { name: 'Next 20' }).click();
  await expect(page).toHaveURL(new RegExp(`${current}\\?leaders=20#leaders$`));
  await expect(caption).toHaveText('Ranks 21–25 of 25');
  await expect(rows).toHaveCount(5);
  expect(await shownRanks(page)).toEqual(ranks(21, 25));
  await expect(rows.first()).toHaveAttribute('data-member', member(21));
  await expect(rows.first().locator('th.name')).toHaveText('Leader Twenty-One');
  await expect(rows.nth(1).locator('th.name')).toHaveText(member(22));
  await expect(pages.getByRole('link', { name: /^Next/ })).toHaveCount(0);
  // The rest of the page is still there.
  await expect(page.getByTestId('state')).toHaveText('open');

  await pages.getByRole('link', { name: 'Previous 20' }).click();
  await expect(page).toHaveURL(new RegExp(`${current}#leaders$`));
  await expect(caption).toHaveText('Ranks 1–20 of 25');
  await expect(rows).toHaveCount(20);
  expect(await shownRanks(page)).toEqual(ranks(1, 20));

  // Without JavaScript: the server renders each page, and its links, by the URL alone (here the
  // period's own key).
  const second = await (await page.request.get(`${base}?leaders=20`)).text();
  expect(second).toContain('Ranks 21–25 of 25');
  expect(second).toContain(`href="${base}#leaders"`);
  expect(second).not.toContain(`?leaders=40`);
  // Past the end: an empty page that says so and leads back to the first, not an error.
  const past = await page.request.get(`${base}?leaders=40`);
  expect(past.status()).toBe(200);
  const text = await past.text();
  expect(text).toContain('No members from rank 41 on: this period has 25 members.');
  expect(text).toContain(`href="${base}#leaders"`);
});
