import { expect, test, type APIRequestContext } from '@playwright/test';
import { cli, createAdmin } from './support';

// A hot board on the real binary: hits arrive through the API, the server's snapshot job
// publishes a list every 5 s, and the page shows the second list's rank changes and "new" entry;
// an open page follows each new list without a reload (and can be paused), and an entry that
// overtakes another shows its arrow with its words; an admin creates a hot board in the console
// and sets its hit filter, and the hits the filter refuses answer `filtered`.

const slug = 'e2e-hot';

async function hit(request: APIRequestContext, admin: string, member: string, times: number, board = slug) {
  for (let i = 0; i < times; i++) {
    const res = await request.post(`/api/v1/boards/${board}/hits`, {
      headers: { Authorization: `Bearer ${admin}` },
      data: { member },
    });
    expect(res.status()).toBe(200);
    expect((await res.json()).result).toBe('counted');
  }
}

async function top(request: APIRequestContext, board = slug) {
  return (await request.get(`/api/v1/boards/${board}/hot/top`)).json();
}

async function listed(request: APIRequestContext, board = slug): Promise<string[]> {
  return (await top(request, board)).entries.map((e: any) => e.member);
}

test('the hot page shows rank-change arrows and "new" after two snapshots', async ({ request, page }) => {
  test.setTimeout(45_000);
  const admin = cli('admin', 'token');
  const created = await request.post('/api/v1/boards', {
    headers: { Authorization: `Bearer ${admin}` },
    data: {
      slug, title: 'Trending searches', cadence: 'hot', bucket_seconds: 60, window_buckets: 10,
      ttl_seconds: 900, snapshot_seconds: 5,
    },
  });
  expect(created.status(), await created.text()).toBe(201);

  await hit(request, admin, 'air fryer', 3);
  await hit(request, admin, 'robot vacuum', 2);
  await hit(request, admin, '洗地机', 1);
  await expect.poll(() => listed(request), { timeout: 15_000 }).toEqual(['air fryer', 'robot vacuum', '洗地机']);
  // Send the second batch right after a fresh list, so no snapshot falls in the middle of it:
  // the next list is then compared with this complete one.
  const first = (await top(request)).updated_at;
  await expect.poll(async () => (await top(request)).updated_at, { timeout: 15_000 }).not.toBe(first);

  await hit(request, admin, '洗地机', 5);
  await hit(request, admin, 'standing desk', 4);
  await expect
    .poll(() => listed(request), { timeout: 15_000 })
    .toEqual(['洗地机', 'standing desk', 'air fryer', 'robot vacuum']);

  // Right after the second list: the next one is at least a few seconds away.
  await page.goto(`/hot/${slug}`);
  await expect(page.getByRole('heading', { name: 'Trending searches' })).toBeVisible();
  await expect(page.getByTestId('window')).toHaveText('last 10 minutes');
  await expect(page.getByTestId('updated')).toContainText('a new list every 5 s');
  const row = (member: string) => page.locator(`table.hot tbody tr[data-member="${member}"]`);
  await expect(row('洗地机').locator('[data-change]')).toHaveText('▲2');
  await expect(row('洗地机')).toHaveAttribute('data-rank', '1');
  await expect(row('standing desk').getByTestId('new')).toHaveText('new');
  await expect(row('air fryer').locator('[data-change]')).toHaveText('▼2');
  await expect(row('robot vacuum').locator('[data-change]')).toHaveText('▼2');
  await page.screenshot({ path: 'artifacts/hot.png', fullPage: true });

  // The home page links the hot board with its window in words.
  await page.goto('/');
  await expect(page.getByRole('link', { name: 'Trending searches', exact: true })).toHaveAttribute('href', `/hot/${slug}`);
});

test('an open hot page follows each new list without a reload, and an overtaking entry shows ▲ with its words', async ({ request, page }) => {
  test.setTimeout(90_000);
  const board = 'e2e-hot-live';
  const admin = cli('admin', 'token');
  const created = await request.post('/api/v1/boards', {
    headers: { Authorization: `Bearer ${admin}` },
    data: {
      slug: board, title: 'Live searches', cadence: 'hot', bucket_seconds: 60, window_buckets: 10,
      ttl_seconds: 900, snapshot_seconds: 5,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  // Equal scores rank the later member name first (Redis order): beta (2) passes alpha (3) as
  // soon as it ties it, and gamma (1), below beta, comes last.
  await hit(request, admin, 'alpha', 3, board);
  await hit(request, admin, 'beta', 2, board);
  await expect.poll(() => listed(request, board), { timeout: 15_000 }).toEqual(['alpha', 'beta']);

  await page.goto(`/hot/${board}`);
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  // Gone if the page were loaded again.
  await page.evaluate(() => { (window as any).sameDocument = true; });
  const row = (member: string) => page.locator(`table.hot tbody tr[data-member="${member}"]`);
  await expect(row('alpha')).toHaveAttribute('data-rank', '1');
  await expect(row('beta')).toHaveAttribute('data-rank', '2');
  await expect(page.locator('table.hot tbody tr')).toHaveCount(2);
  const updated = await page.getByTestId('updated').innerText();

  // A new entry: the open page shows it, and a later "Updated" line, by itself.
  await hit(request, admin, 'gamma', 1, board);
  await expect(row('gamma')).toHaveAttribute('data-rank', '3', { timeout: 20_000 });
  await expect(row('gamma').getByTestId('new')).toHaveText('new');
  await expect(page.getByTestId('updated')).not.toHaveText(updated);
  await expect(page.getByTestId('updated')).toContainText('a new list every 5 s');

  // beta overtakes alpha (6 to 3; from its first hit on, a tie beta wins). However the snapshots
  // fall among these hits, the list that moves has beta first, and the lists after it, in the
  // same order, keep its marks.
  await hit(request, admin, 'beta', 4, board);
  await expect(row('beta')).toHaveAttribute('data-rank', '1', { timeout: 20_000 });
  await expect(row('beta').locator('[data-change]')).toHaveText('▲1');
  await expect(row('beta').locator('[data-change]')).toHaveAttribute('title', 'up 1');
  await expect(row('beta').locator('.visually-hidden')).toHaveText('up 1');
  await expect(row('alpha')).toHaveAttribute('data-rank', '2');
  await expect(row('alpha').locator('[data-change]')).toHaveText('▼1');
  await expect(row('alpha').locator('.visually-hidden')).toHaveText('down 1');
  await expect(row('gamma').locator('[data-change]')).toHaveText('–');
  await expect(row('gamma').locator('.visually-hidden')).toHaveText('no change');
  // The marks stay while the order does: on the next list, in the same order, still there.
  const moved = await page.getByTestId('updated').innerText();
  await expect(page.getByTestId('updated')).not.toHaveText(moved, { timeout: 20_000 });
  await expect(row('beta').locator('[data-change]')).toHaveText('▲1');
  expect(await page.evaluate(() => (window as any).sameDocument)).toBe(true);

  // Updates can be paused (WCAG 2.2.2): no read while paused, and they go on once resumed.
  const pause = page.getByTestId('hot-pause');
  await expect(pause).toHaveText('Pause updates');
  await pause.click();
  await expect(pause).toHaveAttribute('aria-pressed', 'true');
  await expect(pause).toHaveText('Resume updates');
  let reads = 0;
  page.on('request', (r) => { if (r.url().includes('/api/read_hot_list')) reads += 1; });
  await page.waitForTimeout(11_000);
  expect(reads, 'reads while paused').toBe(0);
  await pause.click();
  await expect(pause).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(() => reads, { timeout: 12_000 }).toBeGreaterThan(0);
});

test('an admin creates a hot board in the console and sets its filter; the hits it refuses answer filtered', async ({ page, request }) => {
  const board = 'e2e-hot-filter';
  const password = 'hot filter password';
  createAdmin('hana', password);
  const admin = cli('admin', 'token');
  const hitResult = async (data: object) => {
    const res = await request.post(`/api/v1/boards/${board}/hits`, { headers: { Authorization: `Bearer ${admin}` }, data });
    expect(res.status()).toBe(200);
    return (await res.json()).result;
  };

  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('hana');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await page.waitForLoadState('networkidle');
  const form = page.getByTestId('new-hot-board');
  await form.getByLabel('Slug').fill(board);
  await form.getByLabel('Title').fill('Filtered searches');
  await form.locator('select[name="bucket_seconds"]').selectOption('60');
  await form.getByLabel('Buckets in the window').fill('10');
  await form.getByRole('button', { name: 'Create hot board' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/hot/${board}$`));
  await expect(page.getByTestId('hot-window')).toContainText(board);
  await page.waitForLoadState('networkidle');
  expect(await hitResult({ member: 'Spam Term' })).toBe('counted');

  // The console's front page links it.
  await page.goto('/admin');
  await page.getByTestId('console-hot-boards').getByRole('link', { name: 'Filtered searches' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/hot/${board}$`));
  await page.waitForLoadState('networkidle');

  // A term no hit could name is refused beside its field, and nothing changes.
  await page.getByTestId('blocked-members').fill('<script>');
  await page.getByTestId('save-filter').click();
  await expect(page.locator('[data-field="blocked_members"]')).toContainText('may not contain');
  expect(await hitResult({ member: 'Spam Term' })).toBe('counted');

  await page.getByTestId('only-with-results').check();
  await page.getByTestId('blocked-members').fill('Spam Term\nbuy followers');
  await page.getByTestId('save-filter').click();
  await expect(page.getByTestId('outcome')).toContainText('Filter saved: 2 blocked member(s)');
  // Stored as compared: lower-cased. The form shows the stored filter at once, and after a reload.
  await expect(page.getByTestId('blocked-members')).toHaveValue('spam term\nbuy followers');
  await page.reload();
  await expect(page.getByTestId('blocked-members')).toHaveValue('spam term\nbuy followers');
  await expect(page.getByTestId('only-with-results')).toBeChecked();

  expect(await hitResult({ member: 'SPAM TERM', results: 3 })).toBe('filtered');
  expect(await hitResult({ member: 'air fryer' })).toBe('filtered');
  expect(await hitResult({ member: 'air fryer', results: 3 })).toBe('counted');
});
