import { expect, test, type Page } from '@playwright/test';
import { cli, createAdmin } from './support';

// A whole period run from the console on the real binary: an admin signs in, creates a board
// (a refused field is shown next to it), events arrive through the API, the admin freezes,
// accepts a late event, revokes an event (the audit row appears), hides and unhides a member,
// settles (the digest is shown) and archives. A contestant's signed link highlights "me"; a
// forged one is refused; a display name carrying a script renders as text; a cross-site post is
// refused; signing out ends it all.

const password = 'a season of contests';
const slug = 'e2e-season';
const payload = '<img src=x onerror="window.__xss=1">';

test.beforeAll(() => {
  createAdmin('flo', password);
});

/** Opens a step's confirmation, checks it states a consequence, gives a reason, and confirms. */
async function step(page: Page, label: string, name: string, consequence: RegExp, reason?: string) {
  const panel = page.locator(`details[data-step="${label}"]`);
  await panel.locator('summary').click();
  await expect(panel).toContainText(consequence);
  if (reason) await panel.getByLabel('Reason').fill(reason);
  await panel.locator(`button[data-confirm="${name}"]`).click();
}

/** Applies the preview on the page after checking what it says it does. */
async function apply(page: Page, change: string, moves: Record<string, string>) {
  const preview = page.getByTestId('preview');
  await expect(preview).toContainText(change);
  for (const [member, move] of Object.entries(moves)) {
    await expect(preview.locator('table.moves tbody tr').filter({ hasText: member })).toContainText(move);
  }
  await preview.locator('button[data-confirm="apply"]').click();
  await expect(page.getByTestId('outcome').filter({ hasText: 'Applied' })).toContainText(`Applied: ${change}.`);
  await expect(page.getByTestId('preview')).toHaveCount(0);
}

test('an admin runs a period from the console, end to end', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  page.on('dialog', () => { throw new Error('a script ran from a display name'); });

  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('flo');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText('Signed in as admin:flo');

  // A board whose scores could not stay exact is refused at the field, and nothing is created.
  const form = page.getByTestId('new-board');
  await form.getByLabel('Slug').fill(slug);
  await form.getByLabel('Title').fill('Season final');
  await form.getByLabel('Ties').selectOption('first_reached');
  await form.getByLabel('Highest total').fill('10000000000');
  await form.getByLabel('Prizes, one range per line').fill('1: Gold\n2-3: Silver');
  await form.getByRole('button', { name: 'Create board' }).click();
  await expect(page.locator('[data-field="max_points"]')).toContainText('2^53');
  expect((await page.request.get(`/api/v1/boards/${slug}`)).status()).toBe(404);

  await form.getByLabel('Ties').selectOption('shared');
  await form.getByLabel('Highest total').fill('100000');
  await form.getByRole('button', { name: 'Create board' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/b/${slug}/current$`));
  await expect(page.getByTestId('state')).toHaveText('open');
  const period = (await (await page.request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;

  // Its settings may change later; the rest is fixed at creation.
  await page.waitForLoadState('networkidle');
  await page.locator('details[data-step="Board settings…"] summary').click();
  await page.getByTestId('board-settings').getByLabel('Title').fill('Season grand final');
  await page.getByTestId('board-settings').getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Season grand final');

  // Events from the host platform.
  const key = cli('apikey', 'create', '--board', slug);
  const auth = { Authorization: `Bearer ${key}` };
  const events = [
    { event_id: 'e1', member: 'u1', delta: 50 },
    { event_id: 'e2', member: 'u2', delta: 30 },
    { event_id: 'e3', member: 'u3', delta: 20 },
    { event_id: 'e4', member: 'u1', delta: 5 },
  ];
  const sent = await page.request.post(`/api/v1/boards/${slug}/events`, { headers: auth, data: { events } });
  expect(sent.status()).toBe(200);
  const profile = await page.request.put('/api/v1/members/u3/profile', { headers: auth, data: { display_name: payload } });
  expect(profile.status()).toBe(200);

  // Freeze: later events are kept for review.
  await page.goto(`/admin/b/${slug}/${period}`);
  await page.waitForLoadState('networkidle');
  await step(page, 'Freeze…', 'freeze', /kept as late writes/);
  await expect(page.getByTestId('state')).toHaveText('frozen');
  const late = await page.request.post(`/api/v1/boards/${slug}/events`, {
    headers: auth,
    data: { event_id: 'e5', member: 'u2', delta: 40 },
  });
  expect((await late.json()).results[0].result).toBe('late');

  // Accept it — previewed first: u2 (30 + 40) would overtake u1 (55); nothing changes before
  // "Apply".
  await page.reload();
  await page.waitForLoadState('networkidle');
  const row = page.locator('table.late tbody tr').filter({ hasText: 'e5' });
  await expect(row).toContainText('pending');
  await row.getByLabel('Reason').fill('arrived in the grace minute');
  await row.getByRole('button', { name: 'Accept…' }).click();
  await expect(page.getByTestId('preview').locator('table.moves tbody tr').filter({ hasText: 'u2' })).toContainText('2 → 1');
  await expect(page.locator('table.late tbody tr').filter({ hasText: 'e5' })).toContainText('pending');
  await apply(page, '1 late write accepted', { u2: '30 → 70' });
  await expect(page.locator('table.late tbody tr').filter({ hasText: 'e5' })).toContainText('accepted');
  await expect(page.locator('table.ranking tbody tr').first()).toContainText('u2');

  // Revoke u1's e4 from the member drill-down; the audit trail shows it with its reason.
  await page.locator('table.ranking').getByRole('link', { name: 'u1' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/b/${slug}/${period}/m/u1$`));
  await page.waitForLoadState('networkidle');
  await expect(page.getByTestId('standing')).toContainText('55 points');
  const e4 = page.locator('table.entries tbody tr').filter({ hasText: 'e4' });
  await e4.locator('summary').click();
  await e4.getByLabel('Reason').fill('duplicate submission');
  await e4.getByRole('button', { name: 'Preview revoke' }).click();
  await apply(page, '1 entry revoked', { u1: '55 → 50' });
  await expect(page.getByTestId('standing')).toContainText('50 points');
  await page.goto(`/admin/audit?board=${slug}&action=revoke`);
  const audit = page.locator('table.audit tbody tr');
  await expect(audit).toHaveCount(1);
  await expect(audit).toContainText('admin:flo');
  await expect(audit).toContainText('duplicate submission');

  // Hide u3 from the public views (the ledger keeps it; the audit trail names it), then show it
  // again: the confirmation states the consequence first.
  const publicTop = async () =>
    (await (await page.request.get(`/api/v1/boards/${slug}/periods/${period}/top?limit=10`)).json()).entries.map(
      (e: { member: string }) => e.member,
    );
  await page.goto(`/admin/b/${slug}/${period}/m/u3`);
  await page.waitForLoadState('networkidle');
  await step(page, 'Hide…', 'hide', /leaves every public view/, 'name under review');
  await apply(page, '1 member hidden', { u3: '3 → —' });
  await expect(page.getByTestId('hidden')).toBeVisible();
  await expect(page.getByTestId('standing')).toContainText('20 points, not ranked');
  expect(await publicTop()).toEqual(['u2', 'u1']);
  await step(page, 'Unhide…', 'unhide', /shows again/, 'name is fine');
  await apply(page, '1 member shown again', { u3: '— → 3' });
  await expect(page.getByTestId('hidden')).toHaveCount(0);
  expect(await publicTop()).toEqual(['u2', 'u1', 'u3']);
  await page.goto(`/admin/audit?board=${slug}&member=u3`);
  await expect(page.locator('table.audit tbody tr[data-action="unhide"]')).toContainText('name is fine');
  await expect(page.locator('table.audit tbody tr[data-action="hide"]')).toContainText('name under review');

  // Settle: the digest is shown with the standings and their prizes; then archive.
  await page.goto(`/admin/b/${slug}/${period}`);
  await page.waitForLoadState('networkidle');
  await step(page, 'Settle…', 'settle', /change only through Correct/);
  await expect(page.getByTestId('state')).toHaveText('settled');
  await expect(page.getByTestId('digest')).toHaveText(/^[0-9a-f]{64}$/);
  const settlement = await page.request.get(`/api/v1/boards/${slug}/periods/${period}/settlement`, {
    headers: { Authorization: `Bearer ${cli('admin', 'token')}` },
  });
  expect(await page.getByTestId('digest').textContent()).toBe((await settlement.json()).digest);
  await expect(page.locator('table.standings tbody tr').first()).toContainText('Gold');
  await page.screenshot({ path: 'artifacts/period-console.png', fullPage: true });
  await step(page, 'Archive…', 'archive', /served from the stored standings/);
  await expect(page.getByTestId('state')).toHaveText('archived');

  // A cross-site post to a console function never runs, whatever cookie the browser sends.
  const forgedPost = await page.request.post('/api/admin_transition', {
    headers: { Origin: 'https://evil.example' },
    form: { board: slug, period, step: 'reopen', reason: 'x' },
  });
  expect(forgedPost.status()).toBe(403);

  // The contestant's view: "me" highlighted on the archived board; the script stays text.
  const link = cli('contestant-link', '--member', 'u2', '--hours', '1', '--base-url', baseURL!);
  await page.goto(link);
  await page.goto(`/b/${slug}/${period}`);
  await expect(page.locator('table.ranking tbody tr[data-member="u2"]')).toHaveAttribute('aria-current', 'true');
  await expect(page.locator('table.ranking tbody tr[data-member="u3"]')).toContainText(payload);
  expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
  const forged = await page.goto(link.replace('member=u2', 'member=u1'));
  expect(forged?.status()).toBe(403);

  // Signing out ends the console session.
  await page.goto('/admin');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/admin\/login$/);
  await page.goto(`/admin/b/${slug}/${period}`);
  await expect(page.getByRole('alert')).toContainText('Sign in to the console first.');
});
