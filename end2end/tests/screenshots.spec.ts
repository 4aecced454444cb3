import { expect, test, type Page } from '@playwright/test';
import { cli, createAdmin } from './support';

// Screenshots of each page, public and console, at 1280 px and 390 px, in both colour schemes,
// into artifacts/ (issue 41: "Screenshots of each page at both widths"). artifacts/ is not
// committed (.gitignore): each run writes them afresh. Each page must render without an error.

const password = 'screenshots-console-password';
let admin = 'shot';

test.beforeAll(({}, info) => {
  admin = `shot-${info.workerIndex}`;
  createAdmin(admin, password);
});

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

const publicPages = (baseURL: string) => [
  ['home', '/'],
  ['board', '/b/demo'],
  ['board-find', '/b/demo/current?find=u1001'],
  ['board-first-reached', '/b/demo-sprint'],
  ['member', '/b/demo/current/m/u1001'],
  ['hot', '/hot/demo-hot'],
  ['me', cli('contestant-link', '--member', 'u1001', '--hours', '1', '--base-url', baseURL)],
  ['not-found', '/b/no-such-board'],
];
const consolePages = [
  ['login', '/admin/login'],
  ['console', '/admin'],
  ['console-period', '/admin/b/demo/current'],
  ['console-member', '/admin/b/demo/current/m/u1001'],
  ['audit', '/admin/audit'],
  ['keys', '/admin/keys'],
];

for (const scheme of ['light', 'dark'] as const) {
  test(`every page at 1280 and 390 px, ${scheme}`, async ({ page, baseURL }) => {
    test.setTimeout(180_000);
    await page.emulateMedia({ colorScheme: scheme });
    const shots: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [name, path] of publicPages(baseURL!)) {
        await page.goto(path);
        await hydrated(page);
        await expect(page.locator('main h1').first()).toBeVisible();
        const file = `artifacts/page-${name}-${width}-${scheme}.png`;
        await page.screenshot({ path: file, fullPage: true });
        shots.push(file);
      }
    }
    await page.goto('/admin/login');
    await hydrated(page);
    await page.getByLabel('Username').fill(admin);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByTestId('signed-in')).toHaveText(`Signed in as admin:${admin}`);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [name, path] of consolePages) {
        await page.goto(path);
        await hydrated(page);
        await expect(page.locator('main h1').first()).toBeVisible();
        const file = `artifacts/page-${name}-${width}-${scheme}.png`;
        await page.screenshot({ path: file, fullPage: true });
        shots.push(file);
      }
    }
    expect(shots).toHaveLength(2 * (8 + 6));
  });
}
