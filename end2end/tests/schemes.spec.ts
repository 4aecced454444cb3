import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { createAdmin } from './support';

// Both colour schemes, both languages and the skip link (issue 41), on every main page, public
// and console: axe-core finds no violation at all (any impact) in the light scheme nor in the dark
// one the system asks for, in English nor in Chinese, and the first Tab reaches "Skip to the content", which moves the focus to the
// page's main content.

const password = 'schemes-console-password';
let admin = 'sch';

test.beforeAll(({}, info) => {
  admin = `sch-${info.workerIndex}`;
  createAdmin(admin, password);
});

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

async function signIn(page: Page) {
  await page.goto('/admin/login');
  await hydrated(page);
  await page.getByLabel('Username').fill(admin);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText(`Signed in as admin:${admin}`);
}

const publicPages = [
  ['home', '/'],
  ['board', '/b/demo'],
  ['board-first-reached', '/b/demo-sprint'],
  ['member', '/b/demo/current/m/u1001'],
  ['hot', '/hot/demo-hot'],
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
// What `prefers-color-scheme` gives the page's paper (style/main.css).
const paper = { light: 'rgb(251, 250, 246)', dark: 'rgb(18, 22, 20)' };

for (const [scheme, lang] of [['light', 'en'], ['dark', 'en'], ['light', 'zh-CN'], ['dark', 'zh-CN']] as const) {
  test(`every main page has no axe violation in the ${scheme} scheme, in ${lang}`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: scheme });
    await signIn(page);
    // The language switch's link: the pages after it are in `lang` (the cookie remembers it).
    await page.goto(`/?lang=${lang}`);
    await expect(page.locator('html')).toHaveAttribute('lang', lang);
    for (const [name, path] of [...publicPages, ...consolePages]) {
      await page.goto(path);
      await hydrated(page);
      const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      expect.soft(background, `${name}: the ${scheme} paper`).toBe(paper[scheme]);
      const { violations } = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      const said = violations.map((v) => `${v.id} ${v.impact}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      expect.soft(violations, `${name} (${path}), ${scheme}, ${lang}:\n${said.join('\n')}`).toEqual([]);
      // The Chinese pages at the desktop width (layout.spec.ts takes them at 390 px).
      if (lang !== 'en' && scheme === 'light') await page.screenshot({ path: `artifacts/${lang}-${name}-1280.png`, fullPage: true });
    }
  });
}

test('on every page the first Tab reaches the skip link, which moves the focus to the main content', async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page);
  for (const [name, path] of [...publicPages, ...consolePages]) {
    await page.goto(path);
    await hydrated(page);
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to the content' });
    await expect(skip, `${name}: the first stop`).toBeFocused();
    await expect(skip, `${name}: shown when focused`).toBeInViewport();
    await page.keyboard.press('Enter');
    await expect(page.locator('main#main'), `${name}: the focus is on the main content`).toBeFocused();
    // The next Tab goes on from the content, past the header's links.
    await page.keyboard.press('Tab');
    const next = await page.evaluate(() => !!document.activeElement?.closest('main'));
    expect(next, `${name}: the next stop is inside the content`).toBe(true);
  }
});
