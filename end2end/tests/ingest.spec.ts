import { expect, test } from '@playwright/test';
import { cli } from './support';

// Drives the real binary through its HTTP API: an admin creates a board, a host platform sends
// point events with an ingest key, and the board page shows them.

test('events sent through the API appear on the board, once each', async ({ request, page }) => {
  const admin = cli('admin', 'token');
  const created = await request.post('/api/v1/boards', {
    headers: { Authorization: `Bearer ${admin}` },
    data: {
      slug: 'e2e-ingest', title: 'Ingest check', cadence: 'daily', time_zone: 'America/New_York',
      operator: 'incr', tie_policy: 'shared', max_points: 10000,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const key = cli('apikey', 'create', '--board', 'e2e-ingest');
  const events = [
    { event_id: 'x1', member: 'p1', delta: 30 },
    { event_id: 'x2', member: 'p2', delta: 50 },
    { event_id: 'x3', member: 'p3', delta: 30 },
    { event_id: 'x1', member: 'p1', delta: 30 }, // a retry: counted once
  ];
  const sent = await request.post('/api/v1/boards/e2e-ingest/events', {
    headers: { Authorization: `Bearer ${key}` },
    data: { events },
  });
  expect(sent.status()).toBe(200);
  const results = (await sent.json()).results.map((r: any) => r.result);
  expect(results).toEqual(['applied', 'applied', 'applied', 'duplicate']);

  const profile = await request.put('/api/v1/members/p2/profile', {
    headers: { Authorization: `Bearer ${key}` },
    data: { display_name: '<img src=x onerror=alert(1)>' },
  });
  expect(profile.status()).toBe(200);

  await page.goto('/b/e2e-ingest');
  const rows = page.locator('table.ranking tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toHaveAttribute('data-member', 'p2');
  // The untrusted display name is shown as text, never as markup.
  await expect(rows.nth(0).locator('th')).toHaveText('<img src=x onerror=alert(1)>');
  await expect(page.locator('table.ranking img')).toHaveCount(0);
  expect(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-rank')))).toEqual(['1', '2', '2']);

  const denied = await request.post('/api/v1/boards/demo/events', {
    headers: { Authorization: `Bearer ${key}` },
    data: { event_id: 'y', member: 'p1', delta: 1 },
  });
  expect(denied.status()).toBe(403);
  expect((await denied.json()).error).toBe('forbidden');
});
