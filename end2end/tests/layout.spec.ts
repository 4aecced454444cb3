import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { cli, createAdmin, createBoard, send } from './support';

// Layout and schemes (issue 41): at 390 px no page scrolls sideways — the settlement and its
// digest, the console's rewards and entries tables, the audit trail, the keys page among them —;
// the pages follow the system's dark scheme with no axe violation; a skip link leads past the
// header. Screenshots of each page in the dark scheme go to artifacts/.

const password = 'wide enough for a phone';
const slug = `e2e-layout-${Date.now()}`;
let period = '';
let admin = 'lay';

// An account per worker: a worker started again after a failure runs this again.
test.beforeAll(async ({ request }, info) => {
  admin = `lay-${info.workerIndex}`;
  createAdmin(admin, password);
  const key = await createBoard(request, slug, { prizes: [{ from_rank: 1, to_rank: 2, prize: 'A very long prize name that wraps' }] });
  await send(request, key, slug, [
    { event_id: 'l1', member: 'member-with-a-rather-long-identifier-0001', delta: 30 },
    { event_id: 'l2', member: 'member-with-a-rather-long-identifier-0002', delta: 20 },
    { event_id: 'l3', member: 'short', delta: 10 },
  ]);
  period = (await (await request.get(`/api/v1/boards/${slug}`)).json()).current_period;
  const token = cli('admin', 'token');
  for (const step of ['freeze', 'settle']) {
    const res = await request.post(`/api/v1/boards/${slug}/periods/${period}/${step}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status(), await res.text()).toBe(200);
  }
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

/** The elements wider than the page, by tag and class, for the failure message. */
async function overflow(page: Page): Promise<{ scroll: number; width: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits = Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > width + 1)
      .slice(0, 8)
      .map((e) => `${e.tagName.toLowerCase()}.${(e.getAttribute('class') ?? '').replace(/ /g, '.')}`);
    return { scroll: document.documentElement.scrollWidth, width, culprits };
  });
}

const contestantPages = () => [
  ['board', `/b/${slug}/${period}`],
  ['member', `/b/${slug}/${period}/m/member-with-a-rather-long-identifier-0001`],
  ['demo', '/b/demo'],
  ['demo-then', '/b/demo?at=2999-01-01T00:00:00Z'],
];
const consolePages = () => [
  ['console', '/admin'],
  ['console-settled', `/admin/b/${slug}/${period}`],
  ['console-member', `/admin/b/${slug}/${period}/m/member-with-a-rather-long-identifier-0001`],
  ['console-demo', '/admin/b/demo/current'],
  ['audit', '/admin/audit'],
  ['keys', '/admin/keys'],
  ['hot', '/admin/hot/demo-hot'],
];

for (const lang of ['en', 'zh-CN']) {
  test(`at 390 px no page scrolls sideways, with every disclosure open, in ${lang}`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page);
    // The language switch's link; the cookie keeps it for the pages after.
    await page.goto(`/?lang=${lang}`);
    for (const [name, path] of [...contestantPages(), ...consolePages()]) {
      await page.goto(path);
      await hydrated(page);
      await expect(page.locator('html')).toHaveAttribute('lang', lang);
      await page.locator('details').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      const found = await overflow(page);
      expect.soft(found.scroll, `${name} (${path}), ${lang}, is ${found.scroll} px wide: ${found.culprits.join(', ')}`).toBeLessThanOrEqual(found.width);
      if (lang !== 'en') await page.screenshot({ path: `artifacts/${lang}-${name}-390.png`, fullPage: true });
    }
  });
}

test.describe('the dark scheme', () => {
  test.use({ colorScheme: 'dark' });

  test('pages follow the system\'s dark scheme with no axe violation at 1280 and 390 px', async ({ page }) => {
    test.setTimeout(120_000);
    await signIn(page);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [name, path] of [...contestantPages(), ...consolePages()]) {
        await page.goto(path);
        await hydrated(page);
        const paper = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
        expect(paper, `${name}: a dark paper`).toBe('rgb(18, 22, 20)');
        const { violations } = await new AxeBuilder({ page })
          .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
          .analyze();
        await page.screenshot({ path: `artifacts/dark-${name}-${width}.png`, fullPage: true });
        const said = violations.map((v) => `${v.id} ${v.impact}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
        expect.soft(violations, `${name} at ${width} px, dark:\n${said.join('\n')}`).toEqual([]);
      }
    }
  });
});

test('a skip link is the first stop of the keyboard and leads past the header', async ({ page }) => {
  await page.goto('/b/demo');
  await hydrated(page);
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to the content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('main#main')).toBeFocused();
});
