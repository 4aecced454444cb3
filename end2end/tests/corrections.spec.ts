import { expect, test } from '@playwright/test';
import { cli, createAdmin, createBoard, send } from './support';

// A cheat found after settlement: the admin previews revoking the winner's entry from the
// console — the rank moves and prize changes are shown as a table before "Apply" — applies it,
// and sees revision 2 with its reward deltas; a contestant sees the revision note on the board
// and, on their own page, how their rank changed.

const password = 'corrections after the fact';
const slug = 'e2e-corrections';

test.beforeAll(() => {
  createAdmin('gus', password);
});

test('an admin corrects a settled period through a preview, and contestants see the revision', async ({ page }) => {
  test.setTimeout(90_000);
  const key = await createBoard(page.request, slug, {
    prizes: [
      { from_rank: 1, to_rank: 1, prize: 'Gold' },
      { from_rank: 2, to_rank: 2, prize: 'Silver' },
    ],
  });
  await send(page.request, key, slug, [
    { event_id: 'c1', member: 'u1', delta: 50 },
    { event_id: 'c2', member: 'u2', delta: 30 },
    { event_id: 'c3', member: 'u3', delta: 20 },
    { event_id: 'c4', member: 'corrections-grace', delta: 5 },
  ]);
  // A member with a display name (profiles are shared by every board, so the member is this
  // spec's own): the console's standings name it by it, as Leaders does.
  const named = await page.request.put('/api/v1/members/corrections-grace/profile', {
    headers: { Authorization: `Bearer ${key}` },
    data: { display_name: 'Grace' },
  });
  expect(named.status(), await named.text()).toBe(200);
  const period = (await (await page.request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  const admin = { Authorization: `Bearer ${cli('admin', 'token')}` };
  for (const step of ['freeze', 'settle']) {
    const res = await page.request.post(`/api/v1/boards/${slug}/periods/${period}/${step}`, { headers: admin });
    expect(res.status(), step).toBe(200);
  }
  const first = await (await page.request.get(`/api/v1/boards/${slug}/periods/${period}/settlement`)).json();

  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('gus');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText('Signed in as admin:gus');
  await page.goto(`/admin/b/${slug}/${period}`);
  await page.waitForLoadState('networkidle');
  await expect(page.getByTestId('state')).toHaveText('settled');
  // The period page leads to its public page and to its audit trail.
  const links = page.getByTestId('period-links');
  await expect(links.getByRole('link', { name: 'Public page' })).toHaveAttribute('href', `/b/${slug}/${period}`);
  await links.getByRole('link', { name: 'Audit trail of this period' }).click();
  await expect(page).toHaveURL(`/admin/audit?board=${slug}&period=${period}`);
  await expect(page.locator('table.audit tbody tr[data-action="settle"]')).toHaveCount(1);
  await expect(page.locator('table.audit tbody tr[data-action="freeze"]')).toHaveCount(1);
  // Each row says what changed, field by field, and where, as links into the console.
  const freeze = page.locator('table.audit tbody tr[data-action="freeze"]');
  await expect(freeze.locator('td.changes li')).toHaveText(['state: open → frozen']);
  await expect(freeze.locator(`a[href="/admin/b/${slug}/${period}"]`)).toHaveText(period);
  await expect(freeze.locator(`a[href="/admin/b/${slug}/current"]`)).toHaveText(slug);
  await page.goto(`/admin/b/${slug}/${period}`);
  await page.waitForLoadState('networkidle');

  // The preview of an unknown event is refused and shows nothing to apply.
  const panel = page.locator('details[data-step="Correct…"]');
  await panel.locator('summary').click();
  await expect(panel).toContainText('new settlement revision');
  const form = page.getByTestId('correct-form');
  await form.getByLabel('Change').selectOption('correct');
  // The fields follow the change: a member and Points for a correction, an entry and no Points
  // for a revoke.
  await expect(form.getByLabel('Member id', { exact: true })).toBeVisible();
  await expect(form.getByLabel('Points to add (negative to take away)')).toBeVisible();
  await form.getByLabel('Change').selectOption('revoke');
  await expect(form.getByLabel('Points to add (negative to take away)')).toBeHidden();
  await form.getByLabel('Event or submission id', { exact: true }).fill('nope');
  await form.getByLabel('Reason').fill('cheating');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('preview-refusal')).toContainText('there is no applied event nope');
  await expect(page.getByTestId('preview')).toHaveCount(0);

  // Revoking u1's entry: u1 falls to the last rank, u2 takes Gold, u3 Silver — shown first.
  await form.getByLabel('Event or submission id', { exact: true }).fill('c1');
  await form.getByRole('button', { name: 'Preview' }).click();
  const preview = page.getByTestId('preview');
  await expect(preview).toContainText('1 entry revoked');
  await expect(preview.locator('table.moves tbody tr').filter({ hasText: 'u1' })).toContainText('50 → 0');
  const prizes = preview.locator('table.prizes tbody tr');
  await expect(prizes).toHaveCount(3);
  await expect(prizes.filter({ hasText: 'u2' })).toContainText('Silver');
  await expect(prizes.filter({ hasText: 'u2' })).toContainText('Gold');
  // Nothing changed yet.
  const still = await (await page.request.get(`/api/v1/boards/${slug}/periods/${period}/settlements`)).json();
  expect(still.length).toBe(1);

  await preview.locator('button[data-confirm="apply"]').click();
  await expect(page.getByTestId('outcome')).toContainText('Revision 2 written');
  await expect(page.getByTestId('outcome')).toContainText('4 reward deliveries queued');
  await expect(page.getByTestId('preview')).toHaveCount(0);
  const revisions = page.getByTestId('revisions');
  await expect(revisions.locator('tr[data-revision="2"]')).toContainText('cheating');
  const second = await (await page.request.get(`/api/v1/boards/${slug}/periods/${period}/settlement`)).json();
  expect(second.revision).toBe(2);
  expect(second.previous_digest).toBe(first.digest);
  await expect(page.getByTestId('digest')).toHaveText(second.digest);
  await expect(page.locator('table.rewards tbody tr[data-kind="revoke"]')).toHaveCount(2);
  // This server has no webhook: the console says why the rewards are pending, not that they failed.
  await expect(page.getByTestId('no-webhook')).toContainText('no rewards webhook');
  await expect(page.locator('table.rewards tbody tr').first()).toContainText('pending: no webhook here');
  await expect(page.locator('table.standings tbody tr').first()).toContainText('u2');
  await expect(page.locator('table.standings tbody tr').filter({ hasText: 'Grace (corrections-grace)' })).toHaveCount(1);
  await page.screenshot({ path: 'artifacts/period-correction.png', fullPage: true });

  // The contestant's side: the board names the revision; u2's page says how its rank moved.
  await page.goto(`/b/${slug}/${period}`);
  const note = page.getByTestId('revisions');
  await expect(note).toContainText('Revision 2');
  await expect(note).toContainText('1 entry revoked — cheating');
  await expect(note).toContainText(second.digest);
  await page.goto(`/b/${slug}/${period}/m/u2`);
  await expect(page.getByTestId('rank-changes')).toContainText(
    'Rank changed from 2 to 1 and prize changed from Silver to Gold in revision 2',
  );
});
