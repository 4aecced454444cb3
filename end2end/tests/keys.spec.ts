import { expect, test } from '@playwright/test';
import { createBoard, cli, createAdmin } from './support';

// The console's ingest keys on the real binary: an admin makes a key for a board with a low rate
// limit, sees the full key once, the key writes until it is over its limit (429 + Retry-After),
// the page then lists it by prefix only, a refusal is shown in place, and a revoked key is
// refused.

const password = 'correct horse battery';
const slug = 'e2e-keys';

test.beforeAll(() => {
  createAdmin('kim', password);
});

test('an admin makes a key shown once, the key is rate limited, and a revoked key is refused', async ({
  page,
  request,
}) => {
  await createBoard(request, slug);
  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('kim');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await page.getByTestId('keys-link').click();
  await expect(page).toHaveURL(/\/admin\/keys$/);
  await page.waitForLoadState('networkidle'); // hydrated: the new key is shown in place
  await expect(page.getByTestId('boards-hint')).toContainText(slug);

  // A refusal is shown in place and creates nothing.
  const rows = page.getByTestId('key-row');
  const before = await rows.count();
  await page.getByTestId('new-key-boards').fill('no-such-board');
  await page.getByTestId('create-key').click();
  await expect(page.getByTestId('create-error')).toHaveText('board no-such-board does not exist');
  await expect(rows).toHaveCount(before);

  // Made: the full key once, with the note; the table gains its row (prefix only).
  await page.getByTestId('new-key-boards').fill(slug);
  await page.getByTestId('new-key-rate').fill('1');
  await page.getByTestId('new-key-burst').fill('2');
  await page.getByTestId('create-key').click();
  const secret = page.getByTestId('new-key-secret');
  await expect(secret).toHaveText(/^laurel_ik_[0-9a-f]{48}$/);
  await expect(page.getByTestId('new-key')).toContainText('Copy it now; it will not be shown again.');
  const key = (await secret.textContent())!.trim();
  const prefix = key.slice(0, 16);
  const row = page.locator(`[data-testid="key-row"][data-prefix="${prefix}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText('1/s, burst 2');
  await expect(row.getByTestId('key-state')).toHaveText('live');
  await page.screenshot({ path: 'artifacts/keys.png', fullPage: true });

  // The key writes, up to its burst; the next quick request is refused with Retry-After.
  const send = (id: string) =>
    request.post(`/api/v1/boards/${slug}/events`, {
      headers: { Authorization: `Bearer ${key}` },
      data: { event_id: id, member: 'k1', delta: 1 },
    });
  expect((await send('k-1')).status()).toBe(200);
  expect((await send('k-2')).status()).toBe(200);
  const limited = await send('k-3');
  expect(limited.status()).toBe(429);
  expect((await limited.json()).error).toBe('rate_limited');
  expect(Number(limited.headers()['retry-after'])).toBeGreaterThanOrEqual(1);

  // Shown once: after a reload the page holds the prefix, never the key.
  await page.reload();
  await page.waitForLoadState('networkidle');
  await expect(row).toBeVisible();
  await expect(page.getByTestId('new-key')).toHaveCount(0);
  expect(await page.content()).not.toContain(key);

  // Revoked after a confirmation; the key is refused from then on.
  await row.getByTestId('revoke-key').click();
  await row.getByTestId('revoke-reason').fill('e2e done');
  await row.getByTestId('confirm-revoke').click();
  await expect(row.getByTestId('key-state')).toContainText('revoked');
  await expect(row.getByTestId('key-state')).toContainText('by admin:kim');
  await expect(row.getByTestId('confirm-revoke')).toHaveCount(0);
  await page.screenshot({ path: 'artifacts/keys-revoked.png', fullPage: true });
  expect((await send('k-4')).status()).toBe(401);

  // The audit trail names the admin.
  const admin = cli('admin', 'token');
  const audit = await request.get('/api/v1/audit?action=apikey_revoke', {
    headers: { Authorization: `Bearer ${admin}` },
  });
  const entry = (await audit.json()).entries[0];
  expect([entry.actor, entry.reason, entry.after.prefix]).toEqual(['admin:kim', 'e2e done', prefix]);
});
