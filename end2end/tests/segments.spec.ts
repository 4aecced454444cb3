import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { cli, createAdmin, createBoard, send } from './support';

// Segments on the pages (issue 43), on the real binary: a board declaring `province` and `class`;
// the board page's switcher (a GET form) shows a segment's ranking — its members and ranks, its
// heading, "Show more" and "Find me" within it, links that keep it — and says that the charts
// are the whole board's; the member page lists the member's rank in each segment, each linking
// to the board page in that segment; the words are Chinese in zh-CN; a malformed or undeclared
// segment is a readable error; during a public freeze segments say they are hidden until the
// reveal; the segment view passes axe and fits 390 px.

const slug = `e2e-seg-${Date.now()}`;
const frozenSlug = `e2e-segf-${Date.now()}`;
let period = '';

// zj: ann 50, cat 30, dan 20 · js: bob 40, eve 10 · c1: ann, bob, dan · c2: cat, eve.
// sd/c3: twelve members m01..m12 with 1..12 points (more than a page of 10).
test.beforeAll(async ({ request }) => {
  const key = await createBoard(request, slug, { segments: ['province', 'class'] });
  await send(request, key, slug, [
    { event_id: 'a1', member: 'ann', delta: 50, segments: { province: 'zj', class: 'c1' } },
    { event_id: 'b1', member: 'bob', delta: 40, segments: { province: 'js', class: 'c1' } },
    { event_id: 'c1', member: 'cat', delta: 30, segments: { province: 'zj', class: 'c2' } },
    { event_id: 'd1', member: 'dan', delta: 20, segments: { province: 'zj', class: 'c1' } },
    { event_id: 'e1', member: 'eve', delta: 10, segments: { province: 'js', class: 'c2' } },
    ...Array.from({ length: 12 }, (_, i) => ({
      event_id: `m${i + 1}`, member: `m${String(i + 1).padStart(2, '0')}`, delta: i + 1,
      segments: { province: 'sd', class: 'c3' },
    })),
  ]);
  period = (await (await request.get(`/api/v1/boards/${slug}`)).json()).current_period;
});

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

/** The ranking's rows as [member, rank]. */
async function ranking(page: Page): Promise<string[][]> {
  return page.locator('table.ranking tbody tr').evaluateAll((rows) =>
    rows.map((r) => [r.getAttribute('data-member') ?? '', r.getAttribute('data-rank') ?? '']));
}

test('the switcher shows a segment ranking, and its pages keep the segment', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/b/${slug}`);
  await hydrated(page);
  await expect(page.getByTestId('ranking-heading')).toHaveText('Ranking: the whole board');
  const pick = page.getByLabel('Show the ranking of');
  // Each dimension's values with their member counts, and the whole board (selected).
  await expect(pick.locator('option:checked')).toHaveText('The whole board');
  await expect(pick.locator('optgroup[label="province"] option')).toHaveText([
    'js (2 members)', 'sd (12 members)', 'zj (3 members)',
  ]);
  await expect(pick.locator('optgroup[label="class"] option')).toHaveText([
    'c1 (3 members)', 'c2 (2 members)', 'c3 (12 members)',
  ]);
  // The whole board shows its charts.
  await expect(page.getByTestId('past-periods')).toBeVisible();

  await pick.selectOption('province:zj');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await expect(page.getByTestId('ranking-heading')).toHaveText('Ranking of province zj');
  expect(new URL(page.url()).searchParams.get('segment')).toBe('province:zj');
  expect(await ranking(page)).toEqual([['ann', '1'], ['cat', '2'], ['dan', '3']]);
  await expect(page.getByTestId('member-count')).toHaveText('3 members');
  await expect(page.getByLabel('Show the ranking of').locator('option:checked')).toHaveText('zj (3 members)');
  // The whole board's charts, prizes and past periods are not shown as the segment's.
  await expect(page.getByTestId('past-periods')).toHaveCount(0);
  await expect(page.getByTestId('prizes')).toHaveCount(0);
  await expect(page.getByTestId('segment-board-only')).toContainText("are the whole board's");
  // Nor the pin (a segment has no pinned copy).
  await expect(page.getByRole('button', { name: 'Pin this view' })).toHaveCount(0);

  // "Find me" finds within the segment.
  await page.getByLabel('Find me').fill('dan');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(page.locator('tr[data-member="dan"]')).toHaveAttribute('data-rank', '3');
  await expect(page.locator('tr[data-member="dan"]')).toHaveAttribute('aria-current', 'true');
  expect(new URL(page.url()).searchParams.get('segment')).toBe('province:zj');
  expect(await ranking(page)).toEqual([['ann', '1'], ['cat', '2'], ['dan', '3']]);
  const top = page.getByRole('link', { name: 'Back to the top' });
  expect(new URL(await top.getAttribute('href') ?? '', page.url()).searchParams.get('segment')).toBe('province:zj');

  // "Show more" reads the segment's next page (twelve members in class c3).
  await page.goto(`/b/${slug}?segment=class:c3`);
  await hydrated(page);
  await expect(page.getByTestId('ranking-heading')).toHaveText('Ranking of class c3');
  const more = page.getByRole('link', { name: 'Show more' });
  // Without JavaScript the link keeps the segment too.
  expect(new URL(await more.getAttribute('href') ?? '', page.url()).searchParams.get('segment')).toBe('class:c3');
  expect((await ranking(page)).length).toBe(10);
  const call = page.waitForRequest((r) => r.url().includes('/api/read_after') && r.method() === 'POST');
  await more.click();
  await call;
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(12);
  const rows = await ranking(page);
  expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 12 }, (_, i) => `m${String(12 - i).padStart(2, '0')}`));
  expect(rows.map((r) => r[1])).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));

  // Back to the whole board: "the whole board" sends an empty segment.
  await page.getByLabel('Show the ranking of').selectOption('');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await expect(page.getByTestId('ranking-heading')).toHaveText('Ranking: the whole board');
  expect((await ranking(page)).slice(0, 3)).toEqual([['ann', '1'], ['bob', '2'], ['cat', '3']]);
  expect(errors).toEqual([]);
});

test('the member page lists the member rank in each segment, linking to that ranking', async ({ page }) => {
  await page.goto(`/b/${slug}/${period}/m/dan`);
  const list = page.getByTestId('member-segments');
  await expect(list.locator('li')).toHaveCount(2);
  await expect(list.locator('li[data-segment="province:zj"]')).toHaveText('#3 of 3 in province zj · 20 points');
  await expect(list.locator('li[data-segment="class:c1"]')).toHaveText('#3 of 3 in class c1 · 20 points');
  await list.getByRole('link', { name: '#3 of 3 in class c1' }).click();
  await expect(page).toHaveURL(new RegExp(`/b/${slug}/${period}\\?segment=class:c1$`));
  await expect(page.getByTestId('ranking-heading')).toHaveText('Ranking of class c1');
  expect(await ranking(page)).toEqual([['ann', '1'], ['bob', '2'], ['dan', '3']]);
  // A member of a segment of twelve.
  await page.goto(`/b/${slug}/${period}/m/m03`);
  await expect(page.getByTestId('member-segments').locator('li[data-segment="class:c3"]'))
    .toHaveText('#10 of 12 in class c3 · 3 points');
});

test('in Chinese the switcher, the heading and the member page speak Chinese', async ({ page }) => {
  await page.goto(`/b/${slug}?lang=zh-CN`);
  await expect(page.getByTestId('ranking-heading')).toHaveText('排行：全榜');
  const pick = page.getByLabel('查看排行：');
  await expect(pick.locator('option:checked')).toHaveText('全榜');
  await expect(pick.locator('optgroup[label="province"] option').last()).toHaveText('zj（3 名成员）');
  await expect(page.getByRole('navigation', { name: '排行榜' })).toBeVisible();
  await pick.selectOption('province:js');
  await page.getByRole('button', { name: '查看', exact: true }).click();
  await expect(page.getByTestId('ranking-heading')).toHaveText('province js 的排行');
  expect(await ranking(page)).toEqual([['bob', '1'], ['eve', '2']]);
  await expect(page.getByTestId('segment-board-only')).toContainText('属于全榜');
  await page.goto(`/b/${slug}/${period}/m/eve`);
  await expect(page.getByTestId('member-segments').locator('li[data-segment="province:js"]'))
    .toHaveText('在 province js 中排第 2 名（共 2 名） · 10 分');
});

test('a malformed or undeclared segment is a readable error, not a crash', async ({ page }) => {
  for (const [segment, words] of [
    ['city:hz', 'is not declared'],
    ['province', 'must be dimension:value'],
    ['province:z j', 'value "z j" of "province"'],
  ]) {
    const res = await page.goto(`/b/${slug}?segment=${encodeURIComponent(segment)}`);
    expect(res?.status(), segment).toBe(400);
    await expect(page.getByTestId('error'), segment).toContainText(words);
  }
  // A pinned copy is the whole board's only.
  const res = await page.goto(`/b/${slug}?segment=province:zj&snap=00`);
  expect(res?.status()).toBe(400);
  await expect(page.getByTestId('error')).toContainText("whole board's only");
});

test('the segment view passes axe in both schemes and fits 390 px', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const scheme of ['light', 'dark'] as const) {
    for (const lang of ['en', 'zh-CN']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`/b/${slug}?segment=province:zj&lang=${lang}`);
      await hydrated(page);
      const axe = await new AxeBuilder({ page }).analyze();
      expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`), `${scheme} ${lang}`)
        .toEqual([]);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(wide, `${scheme} ${lang} scrolls sideways`).toBeLessThanOrEqual(0);
    }
  }
  await page.goto(`/b/${slug}/${period}/m/dan?lang=en`);
  await hydrated(page);
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
});

test('during a public freeze segments say they are hidden until the reveal, and leak nothing', async ({ page, request }) => {
  const key = await createBoard(request, frozenSlug, { segments: ['province'] });
  await send(request, key, frozenSlug, [
    { event_id: 'f1', member: 'ann', delta: 50, segments: { province: 'zj' } },
    { event_id: 'f2', member: 'bob', delta: 40, segments: { province: 'zj' } },
  ]);
  const frozenPeriod = (await (await request.get(`/api/v1/boards/${frozenSlug}`)).json()).current_period;
  const freeze = await request.post(`/api/v1/boards/${frozenSlug}/periods/${frozenPeriod}/public-freeze`, {
    headers: { Authorization: `Bearer ${cli('admin', 'token')}` },
  });
  expect(freeze.status(), await freeze.text()).toBe(200);
  // After the freeze bob overtakes ann, and a newcomer joins zj: none of it may show.
  await send(request, key, frozenSlug, [
    { event_id: 'f3', member: 'bob', delta: 100 },
    { event_id: 'f4', member: 'newcomer-zq', delta: 5, segments: { province: 'zj' } },
  ]);

  const res = await page.goto(`/b/${frozenSlug}?segment=province:zj`);
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId('segments-frozen')).toContainText('hidden until the reveal');
  await expect(page.getByTestId('ranking-heading')).toHaveText('Ranking of province zj');
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(0);
  await expect(page.getByTestId('error')).toHaveCount(0);
  const html = await page.content();
  expect(html).not.toContain('newcomer-zq');
  await page.getByTestId('segments-frozen').getByRole('link', { name: 'See the whole board' }).click();
  await expect(page.getByTestId('ranking-heading')).toHaveText('Ranking: the whole board');
  // The whole board shows the freeze's standings; the switcher lists no values.
  await expect(page.getByTestId('segments-frozen')).toBeVisible();
  await expect(page.getByLabel('Show the ranking of')).toHaveCount(0);
  expect(await ranking(page)).toEqual([['ann', '1'], ['bob', '2']]);

  await page.goto(`/b/${frozenSlug}/${frozenPeriod}/m/bob`);
  await expect(page.getByTestId('member-segments-frozen')).toHaveText(
    'The standings are frozen: segment ranks are hidden until the reveal.');
  await expect(page.getByTestId('member-segments')).toHaveCount(0);
});

test('the console creates a board with segment dimensions and their prize tables', async ({ page }) => {
  const password = 'segments console password';
  createAdmin('seg-admin', password);
  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('seg-admin');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText('Signed in as admin:seg-admin');

  // A table for a dimension the board does not declare is refused at its field; nothing is made.
  const created = `e2e-segc-${Date.now()}`;
  const form = page.getByTestId('new-board');
  await form.getByLabel('Slug').fill(created);
  await form.getByLabel('Title').fill('Provinces');
  await form.getByLabel('Segment dimensions').fill('province, class');
  await form.getByLabel('Prizes of each segment ranking').fill('city 1: Medal');
  await form.getByRole('button', { name: 'Create board' }).click();
  await expect(page.locator('[data-field="segment_prizes"]')).toContainText('"city", which is not a declared');
  expect((await page.request.get(`/api/v1/boards/${created}`)).status()).toBe(404);

  await form.getByLabel('Prizes of each segment ranking').fill('province 1: Medal\nprovince 2-3: Pin');
  await form.getByRole('button', { name: 'Create board' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/b/${created}/current$`));
  const board = await (await page.request.get(`/api/v1/boards/${created}`)).json();
  expect(board.segments).toEqual(['province', 'class']);
  expect(board.segment_prizes).toEqual({
    province: [{ from_rank: 1, to_rank: 1, prize: 'Medal' }, { from_rank: 2, to_rank: 3, prize: 'Pin' }],
  });
});
