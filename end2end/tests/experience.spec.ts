import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { cli, createBoard, send } from './support';

// The contestant's history and the board's charts on the real binary: the member page's points
// chart (a revocation and a correction marked), "N points to rank R" and the last periods; the
// board page's distribution with "you are here", the prizes beside their ranks and, once settled,
// their winners, and the past periods. Each is in the server's HTML (no JavaScript needed) and
// still there after hydration, and each chart has its text alternative.

const stamp = Date.now();
const slug = `experience-${stamp}`;
const settledSlug = `experience-settled-${stamp}`;
const prizes = [
  { from_rank: 1, to_rank: 1, prize: 'Cup' },
  { from_rank: 2, to_rank: 3, prize: 'Medal' },
];

async function admin(request: APIRequestContext, path: string, data: object) {
  const res = await request.post(path, { headers: { Authorization: `Bearer ${cli('admin', 'token')}` }, data });
  if (!res.ok()) throw new Error(`${path}: ${res.status()} ${await res.text()}`);
  return res.json();
}

/** Waits for the bundle to hydrate the page (the marker `frontend` sets). */
async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
}

test.beforeAll(async ({ request }) => {
  const key = await createBoard(request, slug, { prizes });
  // alice 50 (1), bob 30 (2), carol 20 (3), dave 4 + 6 − 4 (revoked) + 3 (correction) = 9 (4), eve 5 (5).
  await send(request, key, slug, [
    { event_id: 'a1', member: 'alice', delta: 50 },
    { event_id: 'b1', member: 'bob', delta: 30 },
    { event_id: 'c1', member: 'carol', delta: 20 },
    { event_id: 'd1', member: 'dave', delta: 4 },
    { event_id: 'd2', member: 'dave', delta: 6 },
    { event_id: 'e1', member: 'eve', delta: 5 },
  ]);
  await admin(request, `/api/v1/boards/${slug}/events/d1/revoke`, { reason: 'duplicate' });
  await admin(request, `/api/v1/boards/${slug}/periods/current/corrections`, { member: 'dave', delta: 3, reason: 'bonus' });

  const other = await createBoard(request, settledSlug, { prizes });
  await send(request, other, settledSlug, [
    { event_id: 's1', member: 'zoe', delta: 70 },
    { event_id: 's2', member: 'yan', delta: 40 },
    { event_id: 's3', member: 'xia', delta: 10 },
  ]);
  await admin(request, `/api/v1/boards/${settledSlug}/periods/current/freeze`, {});
  await admin(request, `/api/v1/boards/${settledSlug}/periods/current/settle`, {});
});

test('the member page charts the points, the next ranks and the last periods, with and without JavaScript', async ({ page, request }) => {
  // The server's HTML already holds the charts and their text alternatives.
  const html = await (await request.get(`/b/${slug}/current/m/dave`)).text();
  expect(html).toContain('data-testid="points-chart"');
  expect(html).toMatch(/<svg[^>]*role="img"[^>]*aria-label="Points of dave through [^"]*: 9 after 4 entries; 1 corrections, 1 revocations, 1 revoked entries\."/);
  expect(html).toContain('data-testid="rank-history"');
  expect(html).toMatch(/<strong>11<\/strong>(<!-- -->)? points to rank 3 \(Medal\)/);

  await page.goto(`/b/${slug}/current/m/dave`);
  await hydrated(page);
  const chart = page.getByTestId('points-chart');
  const svg = chart.getByRole('img');
  await expect(svg).toHaveAttribute('aria-label', /9 after 4 entries; 1 corrections, 1 revocations, 1 revoked entries/);
  await expect(svg.locator('title').first()).toHaveText(/^Points of dave/);
  await expect(svg.locator('.mark')).toHaveCount(3);
  // The numbers as text: the steps newest first, each with the points after it.
  await chart.locator('summary').click();
  const rows = chart.locator('details tbody tr');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toContainText('correction (+3)');
  await expect(rows.nth(0)).toContainText('9');
  await expect(rows.nth(1)).toContainText('revocation (−4)');
  await expect(rows.nth(3)).toContainText('revoked later');

  // Under `shared`, equalling carol's 20 shares rank 3: 11 points. The prize line says nothing new.
  await expect(page.getByTestId('to-next-rank')).toHaveText('11 points to rank 3 (Medal)');
  await expect(page.getByTestId('to-prize')).toHaveCount(0);

  // Rank by period: this period's link is the current page, its text the rank.
  const history = page.getByTestId('rank-history').getByRole('img');
  await expect(history).toHaveAttribute('aria-label', /rank 4 of 5, 9 points/);
  const here = page.getByTestId('period-history').locator('a[aria-current="page"]');
  await expect(here).toHaveCount(1);
  await expect(page.getByTestId('period-history').locator('li').first()).toContainText('rank 4 of 5, 9 points');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'artifacts/member-history.png', fullPage: true });

  // Eve: 4 points to dave's rank 4, and 15 to a prize (carol's rank 3).
  await page.goto(`/b/${slug}/current/m/eve`);
  await expect(page.getByTestId('to-next-rank')).toHaveText('4 points to rank 4');
  await expect(page.getByTestId('to-prize')).toHaveText('15 points to a prize: rank 3 (Medal)');
  // Alice leads: nothing to reach.
  await page.goto(`/b/${slug}/current/m/alice`);
  await expect(page.getByTestId('points-chart')).toBeVisible();
  await expect(page.getByTestId('targets')).toHaveCount(0);
});

test('the board page shows the distribution with "you are here", the prizes and the past periods', async ({ page, request, baseURL }) => {
  const html = await (await request.get(`/b/${slug}`)).text();
  expect(html).toContain('data-testid="histogram"');
  expect(html).toMatch(/<svg[^>]*role="img"[^>]*aria-label="Distribution of points in [^"]*: 5 members in \d+ ranges/);
  expect(html).toContain('data-testid="prizes"');
  expect(html).toContain('data-testid="past-periods"');
  expect(html).not.toContain('you are here'); // nobody is "me" in a plain request

  // Dave's signed link: the bar holding 9 points says "you are here".
  await page.goto(cli('contestant-link', '--member', 'dave', '--hours', '1', '--base-url', baseURL!));
  await page.goto(`/b/${slug}`);
  await hydrated(page);
  const histogram = page.getByTestId('histogram');
  await expect(histogram.getByRole('img')).toHaveAttribute('aria-label', /You \(9 points, rank 4\) are in the range/);
  await expect(histogram.locator('rect.bar.me')).toHaveCount(1);
  await expect(histogram.locator('svg text.you')).toHaveText('you are here');
  await histogram.locator('summary').click();
  await expect(histogram.locator('details tbody tr.me')).toContainText('you are here');
  const counts = await histogram.locator('details tbody td.num').allTextContents();
  expect(counts.reduce((sum, n) => sum + Number(n), 0)).toBe(5);

  const prizeRows = page.getByTestId('prizes').locator('tbody tr');
  await expect(prizeRows).toHaveCount(2);
  await expect(prizeRows.nth(0)).toContainText('1Cup');
  await expect(prizeRows.nth(1)).toContainText('2–3Medal');
  const past = page.getByTestId('past-periods').locator('tbody tr').first();
  await expect(past).toContainText('open');
  await expect(past).toContainText('Leading: alice (50 points)');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'artifacts/board-distribution.png', fullPage: true });
});

test('a settled period names its winners beside the prizes, and the past periods say so', async ({ page, request }) => {
  const html = await (await request.get(`/b/${settledSlug}`)).text();
  expect(html).toContain('Won by');

  await page.goto(`/b/${settledSlug}`);
  await hydrated(page);
  const prizeRows = page.getByTestId('prizes').locator('tbody tr');
  await expect(prizeRows.nth(0)).toContainText('zoe (rank 1, 70 points)');
  await expect(prizeRows.nth(1)).toContainText('yan (rank 2, 40 points)');
  await expect(prizeRows.nth(1)).toContainText('xia (rank 3, 10 points)');
  const past = page.getByTestId('past-periods').locator('tbody tr').first();
  await expect(past).toContainText('settled');
  await expect(past).toContainText('Winner: zoe (70 points)');
  // Each winner links to their page of that period; its last periods come from the standings.
  await past.getByRole('link', { name: 'zoe' }).click();
  await expect(page).toHaveURL(new RegExp(`/b/${settledSlug}/[^/]+/m/zoe$`));
  await expect(page.getByTestId('period-history').locator('li').first()).toContainText('settled rank 1 of 3, 70 points');
  await expect(page.getByTestId('targets')).toHaveCount(0);
});
