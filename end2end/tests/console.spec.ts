import { expect, test } from '@playwright/test';
import { createAdmin } from './support';

// The console's sign-in on the real binary: an admin created with `laurel admin create` signs in,
// is named on /admin, signs out, and the session is gone; a wrong password is refused in place.

const password = 'correct horse battery';

test.beforeAll(() => {
  createAdmin('ann', password);
});

test('an admin signs in, is named on the console, and signing out ends the session', async ({ page }) => {
  await page.goto('/admin');
  await expect(page.getByTestId('signed-out')).toBeVisible();

  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle'); // hydrated: the refusal is shown in place
  await page.getByLabel('Username').fill('ann');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('wrong username or password');

  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByTestId('signed-in')).toHaveText('Signed in as admin:ann');
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'laurel_session');
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe('Strict');
  await page.screenshot({ path: 'artifacts/console.png', fullPage: true });

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/admin\/login$/);
  await page.goto('/admin');
  await expect(page.getByTestId('signed-out')).toBeVisible();
  // The old cookie value no longer opens anything.
  const audit = await page.request.get('/api/v1/audit', { headers: { Cookie: `laurel_session=${session?.value}` } });
  expect(audit.status()).toBe(401);
});
