import { expect, test, type Page } from '@playwright/test';
import { createBoard, send } from './support';

// Members' avatars: a profile's https avatar shows before the member's name in the ranking
// table (24×24) and beside the member page's heading (48×48), decorative (alt="") and loaded
// under the page's Content-Security-Policy (img-src 'self' data: https:); an http avatar would
// be mixed content, so no image is shown for it at all.

const slug = 'e2e-avatars';
const url = 'https://avatars.example/u.png';
// Profiles are shared by every board: these members are this spec's own.
const withHttps = 'avatars-https';
const withHttp = 'avatars-http';
const without = 'avatars-none';
// A 1×1 PNG, answered in place of the avatar's server (this machine has no network): an image
// the policy refused would never reach the route, so a loaded image proves the policy allows it.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

async function serveAvatars(page: Page) {
  await page.route('https://avatars.example/**', (route) =>
    route.fulfill({ status: 200, contentType: 'image/png', body: png }));
  // Never asked for (nothing shows an http avatar), and never sent out if it were.
  await page.route('http://avatars.example/**', (route) => route.abort());
}

/** Whether `img` finished loading an image (not refused, not broken). */
const loaded = (img: HTMLImageElement) => img.complete && img.naturalWidth > 0;

test.beforeAll(async ({ request }) => {
  const key = await createBoard(request, slug);
  await send(request, key, slug, [
    { event_id: 'v1', member: withHttps, delta: 30 },
    { event_id: 'v2', member: withHttp, delta: 20 },
    { event_id: 'v3', member: without, delta: 10 },
  ]);
  const profiles: [string, object][] = [
    [withHttps, { display_name: 'Avery', avatar_url: url }],
    [withHttp, { display_name: 'Hale', avatar_url: 'http://avatars.example/h.png' }],
    [without, { display_name: 'Nia' }],
  ];
  for (const [member, data] of profiles) {
    const res = await request.put(`/api/v1/members/${member}/profile`, {
      headers: { Authorization: `Bearer ${key}` },
      data,
    });
    expect(res.status(), await res.text()).toBe(200);
  }
});

test('the ranking shows an https avatar before the name, and none for http or no avatar', async ({ page }) => {
  await serveAvatars(page);
  await page.goto(`/b/${slug}`);
  await page.waitForLoadState('networkidle');
  const row = (member: string) => page.locator(`table.ranking tbody tr[data-member="${member}"]`);
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(3);

  const img = row(withHttps).locator('th.name img.avatar');
  await expect(img).toHaveCount(1);
  await expect(img).toHaveAttribute('src', url);
  await expect(img).toHaveAttribute('alt', '');
  await expect(img).toHaveAttribute('width', '24');
  await expect(img).toHaveAttribute('height', '24');
  await expect(img).toHaveAttribute('referrerpolicy', 'no-referrer');
  await expect.poll(() => img.evaluate(loaded)).toBe(true);
  // Before the name, which stays the link's whole text.
  const order = await row(withHttps).locator('th.name > *').evaluateAll((els) => els.map((e) => e.tagName));
  expect(order).toEqual(['IMG', 'A']);
  await expect(row(withHttps).locator('th.name a')).toHaveText('Avery');

  await expect(row(withHttp).locator('th.name')).toHaveText('Hale');
  await expect(row(withHttp).locator('img')).toHaveCount(0);
  await expect(row(without).locator('img')).toHaveCount(0);
  // The API still answers the http avatar as it was given: only the pages leave it out.
  const top = await (await page.request.get(`/api/v1/boards/${slug}/periods/current/top?limit=10`)).json();
  const avatars = Object.fromEntries(top.entries.map((e: any) => [e.member, e.avatar_url ?? null]));
  expect(avatars).toEqual({ [withHttps]: url, [withHttp]: 'http://avatars.example/h.png', [without]: null });
});

test('the member page shows the https avatar beside its heading, and none for http', async ({ page }) => {
  await serveAvatars(page);
  await page.goto(`/b/${slug}/current/m/${withHttps}`);
  await page.waitForLoadState('networkidle');
  const img = page.locator('h1 img.avatar');
  await expect(img).toHaveCount(1);
  await expect(img).toHaveAttribute('src', url);
  await expect(img).toHaveAttribute('alt', '');
  await expect(img).toHaveAttribute('width', '48');
  await expect(img).toHaveAttribute('height', '48');
  await expect.poll(() => img.evaluate(loaded)).toBe(true);
  await expect(page.locator('h1')).toHaveText('Avery');

  await page.goto(`/b/${slug}/current/m/${withHttp}`);
  await page.waitForLoadState('networkidle');
  await expect(page.locator('h1')).toHaveText('Hale');
  await expect(page.locator('img.avatar')).toHaveCount(0);
});
