import { expect, test, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAdmin } from './support';

// The pages in Chinese (issue 41): a browser that asks for zh-CN reads every page in Chinese, with
// Chinese dates and numbers; the switch in the header changes the language and the choice is
// remembered; the console speaks Chinese too, also after a client-side navigation (its bundle
// renders those pages in the browser). The expected words are read from the catalogues
// (app/locales), so the spec checks that the pages show the catalogue, not a copy of it.

/** A message of a catalogue (`public` or `console`) in `lang`, as Fluent would give it without arguments. */
function said(lang: 'en' | 'zh-CN', key: string): string {
  for (const catalogue of ['public', 'console']) {
    const dir = path.resolve(__dirname, '../../app/locales', catalogue, lang);
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ftl'))) {
      for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        const [id, ...rest] = line.split('=');
        if (id.trim() === key && /^[a-z]/.test(line)) return rest.join('=').trim();
      }
    }
  }
  throw new Error(`no ${key} in the ${lang} catalogues`);
}

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

const password = 'i18n-console-password';
let admin = 'i18n';

test.beforeAll(({}, info) => {
  admin = `i18n-${info.workerIndex}`;
  createAdmin(admin, password);
});

test.describe('a browser that asks for Chinese', () => {
  test.use({ locale: 'zh-CN' });

  test('reads the public pages in Chinese, with Chinese dates and numbers', async ({ page }) => {
    await page.goto('/b/demo');
    await hydrated(page);
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await expect(page.getByRole('link', { name: said('zh-CN', 'site-skip') })).toBeAttached();
    await expect(page.getByRole('link', { name: 'English' })).toBeVisible();
    await expect(page.getByText(said('en', 'site-skip'))).toHaveCount(0);
    // The period's end as Chinese writes it: "2026年12月7日 周一 01:00".
    await expect(page.locator('main')).toContainText(/\d{4}年\d{1,2}月\d{1,2}日 周[一二三四五六日] \d\d:\d\d/);
    // Ada Lovelace's 1420 points, grouped with a comma.
    await page.goto('/b/demo/current/m/u1001');
    await hydrated(page);
    await expect(page.getByTestId('points')).toHaveText('1,420');
    // No English word left in the page's own text (member names and ids aside).
    const english = await page.locator('main').evaluate((main) => {
      const words: string[] = [];
      const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement!;
        if (el.closest('.id, .name, [translate="no"], code, a[href*="/m/"], td.member, script, style')) continue;
        // Data, not words: names, ids, the demo board's title, zones, periods.
        const text = n.textContent!.replace(/Ada Lovelace|u\d+|Laurel|Weekly study points \(demo\)|UTC|[A-Z][a-z]+\/[A-Za-z_]+|\d{4}-W\d\d/g, '');
        if (/\b(the|and|of|points|rank|members?)\b/i.test(text)) words.push(text.trim());
      }
      return words;
    });
    expect(english, 'English sentences on the Chinese member page').toEqual([]);
  });

  test('switches to English and keeps the choice, then back to Chinese', async ({ page }) => {
    await page.goto('/b/demo');
    await hydrated(page);
    await page.getByRole('link', { name: 'English' }).click();
    await expect(page).toHaveURL(/[?&]lang=en/);
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.getByRole('link', { name: said('en', 'site-skip') })).toBeAttached();
    // Remembered: the next page, without ?lang=, is English although the browser asks for Chinese.
    await page.goto('/b/demo/current/m/u1001');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.getByTestId('points')).toHaveText('1\u202f420');
    await page.getByRole('link', { name: '中文' }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await page.goto('/');
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  });

  test('reads the console in Chinese, also after a client-side navigation', async ({ page }) => {
    await page.goto('/admin/login');
    await hydrated(page);
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await page.locator('input[name="username"]').fill(admin);
    await page.locator('input[name="password"]').fill(password);
    await page.locator('form button[type="submit"]').click();
    await expect(page.getByTestId('signed-in')).toBeVisible();
    await expect(page.getByTestId('signed-in')).toContainText(admin);
    await hydrated(page);
    // The router renders the period's page in the browser: its words and times are still Chinese.
    await page.locator('a[href^="/admin/b/demo/2"]').first().click();
    await expect(page).toHaveURL(/\/admin\/b\/demo\/\d{4}-W\d\d$/);
    await expect(page.getByTestId('state')).toBeVisible();
    await expect(page.locator('main')).toContainText(/\d{4}年\d{1,2}月\d{1,2}日 周[一二三四五六日] \d\d:\d\d/);
    await expect(page.locator('main')).not.toContainText(/\b(Freeze|Settle|Leaders|Standings)\b/);
  });
});

test('a browser that asks for English reads English, and an unknown language falls back to it', async ({ browser }) => {
  for (const locale of ['en-GB', 'fr-FR']) {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await page.goto('/b/demo/current/m/u1001');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.getByTestId('points')).toHaveText('1\u202f420');
    await context.close();
  }
});
