import { expect, test, type Locator, type Page } from '@playwright/test';
import { createBoard, send } from './support';

// The board page's leaders' race (app/src/components/charts/leaders.rs; the engine's
// `leaders_chart`): on a board of its own, three members score at different times of the period;
// the page's chart draws one line each, ends each line at its member's points in the ranking (on
// the chart's own scale), and its table (in the chart's <details>, for screen readers) lists the
// three with those points. A board nobody has points on says so; the moment's page (`?at=`) has
// no such chart.

const stamp = Date.now();
const slug = `leaders-chart-${stamp}`;
// Profiles are shared by every board: these members are this spec's own.
const [ann, ben, cat] = ['race-ann', 'race-ben', 'race-cat'];

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
}

/** Where a step line's path ends, vertically: its last `V`, else its start (a single step). */
function endY(d: string): number {
  const climbs = [...d.matchAll(/V(-?[\d.]+)/g)].map((m) => Number(m[1]));
  if (climbs.length > 0) return climbs[climbs.length - 1];
  return Number(/^M-?[\d.]+ (-?[\d.]+)/.exec(d)![1]);
}

/** The `y` of the y axis's label that reads `text`. */
async function tickY(chart: Locator, text: string): Promise<number> {
  const label = chart.locator('svg[role="img"] g.axis text').filter({ hasText: new RegExp(`^${text}$`) });
  return Number(await label.getAttribute('y'));
}

test('the board page charts the leaders’ points through the period, one line each, with a table', async ({ page, request }) => {
  const key = await createBoard(request, slug);
  const current = await (await request.get(`/api/v1/boards/${slug}/periods/current/top?limit=1`)).json();
  const start = Date.parse(current.starts_at);
  const now = Date.now();
  // Instants 1–5 of 6 between the period's start and now: inside the period and in the past.
  const at = (i: number) => new Date(start + ((now - start) * i) / 6).toISOString();
  await send(request, key, slug, [
    { event_id: 'r1', member: ann, delta: 10, occurred_at: at(1) },
    { event_id: 'r2', member: ben, delta: 25, occurred_at: at(2) },
    { event_id: 'r3', member: ann, delta: 30, occurred_at: at(3) },
    { event_id: 'r4', member: cat, delta: 5, occurred_at: at(4) },
    { event_id: 'r5', member: ben, delta: 2, occurred_at: at(5) },
  ]);
  const top = await (await request.get(`/api/v1/boards/${slug}/periods/current/top?limit=10`)).json();
  const points: Record<string, number> = Object.fromEntries(top.entries.map((e: any) => [e.member, e.points]));
  expect(points).toEqual({ [ann]: 40, [ben]: 27, [cat]: 5 });

  await page.goto(`/b/${slug}`);
  await hydrated(page);
  const chart = page.getByTestId('leaders-chart');
  const svg = chart.locator('svg[role="img"]');
  await expect(svg).toHaveAttribute(
    'aria-label',
    `Points of the top 3 of ${current.period} through the period: ${ann} (40 points), ${ben} (27 points), ${cat} (5 points).`,
  );
  // One line per member, each ending at the member's points in the ranking.
  const lines = svg.locator('[data-member]');
  await expect(lines).toHaveCount(3);
  const drawn = await lines.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-member')));
  expect(drawn.sort()).toEqual([ann, ben, cat]);
  // The y axis runs 0 → 40 (ann's points are the highest tick): each end is where its points are.
  const [zero, forty] = [await tickY(chart, '0'), await tickY(chart, '40')];
  expect(forty).toBeLessThan(zero);
  for (const member of [ann, ben, cat]) {
    const line = svg.locator(`g[data-member="${member}"]`);
    await expect(line).toHaveAttribute('data-points', String(points[member]));
    const d = (await line.locator('path.race').getAttribute('d'))!;
    const expected = zero + ((forty - zero) * points[member]) / 40;
    expect(Math.abs(endY(d) - expected), `${member}: ${d}`).toBeLessThan(0.2);
    // ann's line climbs twice (10, then 40); the others start at their first points.
    expect(d.match(/V/g)?.length ?? 0, `${member}: ${d}`).toBe(member === cat ? 0 : 1);
  }

  // The same numbers as a table, for screen readers.
  await chart.locator('summary').click();
  const rows = chart.getByTestId('leaders-table').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  for (const [i, member] of [ann, ben, cat].entries()) {
    const row = rows.nth(i);
    // `data-leader`, not `data-member`: `tr[data-member]` is the ranking's rows.
    await expect(row).toHaveAttribute('data-leader', member);
    await expect(row.locator('td').nth(0)).toHaveText(String(i + 1));
    await expect(row.locator('td').nth(1)).toHaveText(member);
    await expect(row.locator('td').nth(2)).toHaveText(String(points[member]));
  }

  // The moment's page shows only that moment: no period charts.
  await page.goto(`/b/${slug}?at=${encodeURIComponent(new Date().toISOString())}`);
  await expect(page.getByTestId('then-notice')).toBeVisible();
  await expect(page.getByTestId('leaders-chart')).toHaveCount(0);
});

test('a board nobody has points on says so instead of a chart', async ({ page, request }) => {
  const empty = `${slug}-none`;
  await createBoard(request, empty);
  await page.goto(`/b/${empty}`);
  await expect(page.getByTestId('leaders-chart-empty')).toHaveText(/^Nobody has points in \d{4}-W\d{2} yet\.$/);
  await expect(page.getByTestId('leaders-chart')).toHaveCount(0);
});
