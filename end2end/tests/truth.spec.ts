import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { cli, createAdmin, createBoard, send } from './support';

// What contestants and admins see is true and consistent (issue 41): times in the board's zone
// however a page was reached, a stepwise reveal from the bottom up with the winners last, a
// public page that follows a reveal and live rows, no link to a period that never existed,
// "Find me" by display name, and each kind of error said in words.

const password = 'the truth and nothing else';
let admin = '';
let user = 'tess';

// An account per worker: a worker started again after a failure runs this again.
test.beforeAll(({}, info) => {
  user = `tess-${info.workerIndex}`;
  createAdmin(user, password);
  admin = cli('admin', 'token');
});

async function signIn(page: Page) {
  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText(`Signed in as admin:${user}`);
}

/** A lifecycle or contest call of the API, as admin. */
async function lifecycle(request: APIRequestContext, slug: string, period: string, what: string, data: object = {}) {
  const res = await request.post(`/api/v1/boards/${slug}/periods/${period}/${what}`, {
    headers: { Authorization: `Bearer ${admin}` },
    data,
  });
  if (res.status() !== 200) throw new Error(`${what}: ${res.status()} ${await res.text()}`);
  return res.json();
}

/** Opens a console step's confirmation and confirms it. */
async function step(page: Page, label: string, name: string) {
  const panel = page.locator(`details[data-step="${label}"]`);
  await panel.locator('summary').click();
  await panel.locator(`button[data-confirm="${name}"]`).click();
}

test('item 1: a period\'s times are in the board\'s zone after client-side navigation, as after a reload', async ({ page }) => {
  await signIn(page);
  await page.waitForLoadState('networkidle');
  // The console's list of boards: a client-side navigation to the demo's period page.
  await page.locator('li[data-board="demo"] a').first().click();
  await expect(page).toHaveURL(/\/admin\/b\/demo\/\d{4}-W\d{2}$/);
  const freezes = page.locator('p', { hasText: 'Freezes in' });
  await expect(freezes).toContainText('in Asia/Shanghai');
  const navigated = (await freezes.textContent())!.replace(/^Freezes in [^(]*/, '');
  await page.reload();
  await expect(freezes).toContainText('in Asia/Shanghai');
  const reloaded = (await freezes.textContent())!.replace(/^Freezes in [^(]*/, '');
  expect(navigated).toBe(reloaded);
  // And it is the zone's wall time: the demo's weeks end on Monday 00:00 in Shanghai, plus the grace.
  expect(reloaded).toMatch(/\(at Mon \d{4}-\d{2}-\d{2} 0\d:\d{2} in Asia\/Shanghai/);

  // The member page says its times in the board's zone too, and its chart stops at the period's end.
  await page.goto('/b/demo');
  const member = await page.locator('table.ranking tbody tr').first().getAttribute('data-member');
  await page.goto(`/b/demo/current/m/${member}`);
  await expect(page.locator('table.entries thead').first()).toContainText('When (Asia/Shanghai)');
});

test('item 2: "Reveal next" reveals one member a step, from the bottom of the frozen board up', async ({ page, request, baseURL }) => {
  const slug = `reveal-${Date.now()}`;
  const key = await createBoard(request, slug, { prizes: [{ from_rank: 1, to_rank: 1, prize: 'Cup' }] });
  await send(request, key, slug, [
    { event_id: 'r1', member: 'ann', delta: 50 },
    { event_id: 'r2', member: 'bob', delta: 40 },
    { event_id: 'r3', member: 'cyd', delta: 30 },
    { event_id: 'r4', member: 'dee', delta: 20 },
  ]);
  await signIn(page);
  await page.goto(`/admin/b/${slug}/current`);
  await page.waitForLoadState('networkidle');
  await step(page, 'Freeze publicly…', 'public-freeze');
  await expect(page.getByTestId('public-freeze')).toContainText('Publicly frozen since');
  // After the freeze cyd overtakes everyone and dee gains a little: two members to reveal.
  await send(request, key, slug, [
    { event_id: 'r5', member: 'cyd', delta: 100 },
    { event_id: 'r6', member: 'dee', delta: 5 },
  ]);
  await page.reload();
  await expect(page.getByTestId('next-reveal')).toHaveText('Next: dee, now #4 on the frozen board; 2 members still to reveal, winners last.');

  const visitor = await page.context().browser()!.newContext({ baseURL });
  const board = await visitor.newPage();
  // The first step reveals dee alone, the frozen board's last row; the winner is still hidden.
  await step(page, 'Reveal next…', 'reveal-next');
  await expect(page.getByTestId('outcome')).toContainText('Revealed dee; 1 still to reveal.');
  await expect(page.getByTestId('next-reveal')).toHaveText('Next: cyd, now #3 on the frozen board; the last member to reveal.');
  await board.goto(`/b/${slug}`);
  await expect(board.locator('tr[data-member="dee"] td.points')).toHaveText('25');
  await expect(board.locator('tr[data-member="cyd"] td.points')).toHaveText('30');
  await expect(board.locator('table.ranking tbody tr').first()).toHaveAttribute('data-member', 'ann');
  // Then cyd, who takes first; then the step that ends the freeze.
  await step(page, 'Reveal next…', 'reveal-next');
  await expect(page.getByTestId('outcome')).toContainText('Revealed cyd; 0 still to reveal.');
  await board.reload();
  await expect(board.locator('table.ranking tbody tr').first()).toHaveAttribute('data-member', 'cyd');
  await expect(page.getByTestId('next-reveal')).toContainText('Nothing is left to reveal');
  await step(page, 'Reveal next…', 'reveal-next');
  await expect(page.getByTestId('outcome')).toContainText('Revealed: the public sees the live standings.');
  await visitor.close();
});

test('item 3: the public page follows a reveal and live rows, and says what its state means', async ({ page, request }) => {
  const slug = `consistent-${Date.now()}`;
  const key = await createBoard(request, slug);
  // An empty board: the count follows the rows that arrive live.
  const stream = page.waitForRequest((r) => r.url().includes(`/api/v1/boards/${slug}/periods/`) && r.url().includes('/stream?limit='));
  await page.goto(`/b/${slug}`);
  await stream;
  await expect(page.getByTestId('live-status')).toBeVisible();
  await expect(page.getByTestId('member-count')).toHaveText('0 members');
  await send(request, key, slug, [{ event_id: 'c1', member: 'ann', delta: 10 }]);
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(1, { timeout: 3000 });
  await expect(page.getByTestId('member-count')).toHaveText('1 member');
  await expect(page.getByTestId('histogram-empty')).not.toContainText('Nobody has points');

  // A public freeze and its reveal reach the open page without a reload.
  const period = (await (await request.get(`/api/v1/boards/${slug}`)).json()).current_period;
  await lifecycle(request, slug, period, 'public-freeze');
  await expect(page.getByTestId('public-freeze')).toBeVisible({ timeout: 3000 });
  await lifecycle(request, slug, period, 'reveal', { step: 'all' });
  await expect(page.getByTestId('public-freeze')).toHaveCount(0, { timeout: 3000 });

  // Frozen before its end: the end is still to come, and the rows no longer shift with points.
  await lifecycle(request, slug, period, 'freeze');
  await page.reload();
  await expect(page.locator('p.meta').first()).toContainText('frozen early; the period ends');
  await expect(page.locator('p.meta').first()).not.toContainText('ended');
  await expect(page.getByTestId('ranking-hint')).not.toContainText('rows may shift');
  // Settled: final standings.
  await lifecycle(request, slug, period, 'settle');
  await page.reload();
  await expect(page.getByTestId('ranking-hint')).toHaveText('Final standings.');
});

test('item 4: navigation stops at the board\'s first period, and the console offers nothing before it', async ({ page, request }) => {
  const slug = `first-${Date.now()}`;
  const key = await createBoard(request, slug);
  await send(request, key, slug, [{ event_id: 'f1', member: 'ann', delta: 10 }]);
  await page.goto(`/b/${slug}`);
  await expect(page.locator('nav.periods a[rel="prev"]')).toHaveCount(0);
  const period = (await (await request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  const [year, week] = period.split('-W').map(Number);
  const before = week > 1 ? `${year}-W${String(week - 1).padStart(2, '0')}` : `${year - 1}-W52`;
  await page.goto(`/b/${slug}/${before}`);
  await expect(page.getByTestId('before-first')).toContainText(`no period before ${period}`);
  await expect(page.locator('nav.periods a[rel="prev"]')).toHaveCount(0);

  await signIn(page);
  await page.goto(`/admin/b/${slug}/${before}`);
  await expect(page.getByTestId('outside')).toContainText('never existed');
  await expect(page.locator('details[data-step="Freeze…"]')).toHaveCount(0);
  await expect(page.locator('p', { hasText: 'Freezes in' })).toHaveCount(0);
});

test('item 5: "Find me" finds a member by the start of their display name, and names the period', async ({ page, request }) => {
  const slug = `names-${Date.now()}`;
  const key = await createBoard(request, slug);
  const tag = Date.now().toString(36);
  const profiles: Record<string, string> = {
    [`ada-${tag}`]: `Ada${tag} Lovelace`,
    [`adam-${tag}`]: `Adam${tag} Smith`,
    [`bob-${tag}`]: `Bob${tag}`,
  };
  for (const [member, name] of Object.entries(profiles)) {
    const res = await request.put(`/api/v1/members/${member}/profile`, {
      headers: { Authorization: `Bearer ${key}` },
      data: { display_name: name },
    });
    expect(res.status()).toBe(200);
  }
  await send(request, key, slug, [
    { event_id: 'n1', member: `ada-${tag}`, delta: 100 },
    { event_id: 'n2', member: `adam-${tag}`, delta: 50 },
    { event_id: 'n3', member: `bob-${tag}`, delta: 10 },
  ]);
  const period = (await (await request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  await page.goto(`/b/${slug}`);
  // A whole name, in another case: that member among their neighbours, highlighted.
  await page.getByLabel('Find me').fill(`ada${tag} lovelace`);
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.locator(`tr[data-member="ada-${tag}"]`)).toHaveAttribute('aria-current', 'true');
  await expect(page.getByTestId('find-notice')).toHaveCount(0);
  // A start several names share: the choices, best ranked first; picking one finds them.
  await page.goto(`/b/${slug}?find=ad`);
  const choices = page.getByTestId('find-choices');
  await expect(choices).toBeVisible();
  await expect(choices.locator(`li[data-member="ada-${tag}"]`)).toBeVisible();
  await expect(choices.locator(`li[data-member="adam-${tag}"]`)).toBeVisible();
  await choices.locator(`li[data-member="adam-${tag}"] a`).click();
  await expect(page.locator(`tr[data-member="adam-${tag}"]`)).toHaveAttribute('aria-current', 'true');
  // Nobody: said with the period's name, never "current".
  await page.goto(`/b/${slug}?find=zz${tag}`);
  await expect(page.getByTestId('find-notice')).toHaveText(`Nobody ranked in ${period} has the member id or a name starting with “zz${tag}”.`);
});

test('item 6: each kind of error has its own heading and words; the console keeps its way back', async ({ page }) => {
  await page.goto('/b/demo/2026-W99');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Not found');
  await expect(page).toHaveTitle('Not found · Laurel');
  await expect(page.getByTestId('error')).toContainText('There is no period 2026-W99');
  await expect(page.getByTestId('error')).not.toContainText('Something went wrong');

  await page.goto('/b/demo/current/m/not%20an%20id');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Not a valid request');
  await expect(page).toHaveTitle('Not a valid request · Laurel');
  await expect(page.getByTestId('error')).toContainText('"not an id" is not a member id');

  await signIn(page);
  await page.goto('/admin/b/no-such-board/current');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Not found');
  await expect(page.getByRole('link', { name: 'Back to the console' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'See all boards' })).toHaveCount(0);

  // A filter that cannot be read is said beside the form, which stays.
  await page.goto('/admin/audit?since=yesterday');
  await expect(page.locator('[data-field="since"]')).toContainText('Since: "yesterday" is neither a date');
  await expect(page.locator('form.filters')).toBeVisible();
  await expect(page.getByTestId('error')).toHaveCount(0);
});

test('item 8: "Settle…" waits for pending late writes; the keys page says limits are fleet-wide and copies the key', async ({ page, request, context }) => {
  const slug = `late-${Date.now()}`;
  const key = await createBoard(request, slug);
  await send(request, key, slug, [{ event_id: 'k1', member: 'ann', delta: 10 }]);
  const period = (await (await request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  await lifecycle(request, slug, period, 'freeze');
  const late = await request.post(`/api/v1/boards/${slug}/events`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { events: [{ event_id: 'k2', member: 'bob', delta: 5 }] },
  });
  expect((await late.json()).results[0].result).toBe('late');

  await signIn(page);
  await page.goto(`/admin/b/${slug}/${period}`);
  await expect(page.getByTestId('state')).toHaveText('frozen');
  await expect(page.getByTestId('settle-waits')).toContainText('Settling waits for 1 pending late write');
  await expect(page.locator('details[data-step="Settle…"]')).toHaveCount(0);
  const pending = await (await request.get(`/api/v1/boards/${slug}/periods/${period}/late?status=pending`, {
    headers: { Authorization: `Bearer ${admin}` },
  })).json();
  const id = pending.entries[0].id;
  await lifecycle(request, slug, period, `late/${id}/reject`, { reason: 'too late' });
  await page.reload();
  await expect(page.getByTestId('settle-waits')).toHaveCount(0);
  await expect(page.locator('details[data-step="Settle…"]')).toHaveCount(1);

  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/admin/keys');
  await page.waitForLoadState('networkidle');
  await expect(page.locator('p.hint', { hasText: 'Limits are counted' })).toContainText('across all server instances together');
  await page.getByTestId('new-key-boards').fill(slug);
  await page.getByTestId('create-key').click();
  const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
  await page.getByTestId('copy-key').click();
  await expect(page.getByTestId('copy-said')).toHaveText('Copied.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
});

test('item 8: a preview can be cancelled, and one outcome shows at a time', async ({ page, request }) => {
  const slug = `cancel-${Date.now()}`;
  const key = await createBoard(request, slug);
  await send(request, key, slug, [
    { event_id: 'x1', member: 'ann', delta: 30 },
    { event_id: 'x2', member: 'bob', delta: 20 },
  ]);
  await signIn(page);
  await page.goto(`/admin/b/${slug}/current`);
  await page.waitForLoadState('networkidle');
  const panel = page.locator('details[data-step="Correct…"]');
  await panel.locator('summary').click();
  const form = page.getByTestId('correct-form');
  await form.getByLabel('Change').selectOption('revoke');
  await form.getByLabel('Event or submission id', { exact: true }).fill('x1');
  await form.getByLabel('Reason').fill('a mistake');
  await form.getByRole('button', { name: 'Preview' }).click();
  const preview = page.getByTestId('preview');
  await expect(preview).toBeVisible();
  await preview.locator('button[data-confirm="cancel"]').click();
  await expect(page.getByTestId('outcome')).toContainText('Cancelled: ');
  await expect(page.getByTestId('outcome')).toContainText('nothing changed.');
  await expect(preview).toHaveCount(0);
  const top = await (await request.get(`/api/v1/boards/${slug}/periods/current/top?limit=5`)).json();
  expect(top.entries.map((e: any) => [e.member, e.points])).toEqual([['ann', 30], ['bob', 20]]);

  // Applied, then a lifecycle step: the step's answer replaces the older "Applied".
  await form.getByRole('button', { name: 'Preview' }).click();
  await preview.locator('button[data-confirm="apply"]').click();
  await expect(page.getByTestId('outcome').filter({ hasText: 'Applied' })).toBeVisible();
  await step(page, 'Freeze…', 'freeze');
  await expect(page.getByTestId('state')).toHaveText('frozen');
  await expect(page.getByTestId('outcome')).toHaveCount(1);
  await expect(page.getByTestId('outcome')).not.toContainText('Applied');
});

test('item 9: the tie rule is said under the ranking, and points are grouped alike everywhere', async ({ page }) => {
  await page.goto('/b/demo');
  await expect(page.getByTestId('tie-rule')).toHaveText('Equal points share a rank, marked “=”; the next rank skips as many (1, 2, 2, 4).');
  await page.goto('/b/demo-sprint');
  await expect(page.getByTestId('tie-rule')).toContainText('who reached them first ranks higher');
  // The ranking's points and the past periods' use the same grouping (thin space, 1 420).
  await page.goto('/b/demo');
  const points = await page.locator('table.ranking td.points').allTextContents();
  for (const p of points) expect(p).toMatch(/^−?\d{1,3}(\u202f\d{3})*$/);
});
