import { expect, test } from '@playwright/test';
import { cli } from './support';

// A contestant opens the signed link their host platform gave them (`laurel contestant-link`):
// the demo board then highlights them and offers their page. A forged link is refused.

test('a signed link makes the board highlight "me"; a forged one is refused', async ({ page, baseURL }) => {
  const link = cli('contestant-link', '--member', 'u1001', '--hours', '1', '--base-url', baseURL!);
  expect(link).toMatch(/\/me\?member=u1001&expires=\d+&sig=[0-9a-f]{64}$/);

  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Welcome, u1001' })).toBeVisible();
  await page.goto('/b/demo');
  await expect(page.getByTestId('me')).toContainText('You are u1001');
  const mine = page.locator('table.ranking tbody tr[data-member="u1001"]');
  await expect(mine).toHaveAttribute('aria-current', 'true');
  await expect(page.locator('table.ranking tbody tr[aria-current="true"]')).toHaveCount(1);
  await page.screenshot({ path: 'artifacts/me.png', fullPage: true });
  await page.getByRole('link', { name: 'My page' }).click();
  await expect(page).toHaveURL(/\/b\/demo\/[^/]+\/m\/u1001$/);

  // Someone else's name with u1001's signature: refused, and "me" stays u1001.
  const forged = link.replace('member=u1001', 'member=u1002');
  const response = await page.goto(forged);
  expect(response?.status()).toBe(403);
  await expect(page.getByRole('alert')).toContainText('This link is not valid.');
  await page.goto('/b/demo');
  await expect(page.getByTestId('me')).toContainText('You are u1001');
});
