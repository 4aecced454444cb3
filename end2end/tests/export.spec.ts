import { expect, test, type Download, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import { createAdmin } from './support';

// Export of the visible standings (issue 41): "Export CSV" and "Export JSON" save exactly the
// rows the ranking table shows — on the public board page (after "Show more" too) and on the
// console's period page — made in the browser, with the table's columns.

const password = 'export-console-password';
let admin = 'exp';

test.beforeAll(({}, info) => {
  admin = `exp-${info.workerIndex}`;
  createAdmin(admin, password);
});

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

/** The table's rows as the reader sees them: rank (without the tie mark), member id, name, points. */
async function shownRows(page: Page) {
  return page.locator('table.ranking tbody tr').evaluateAll((rows) =>
    rows.map((tr) => ({
      rank: Number(tr.getAttribute('data-rank')),
      member: tr.getAttribute('data-member')!,
      name: tr.querySelector('th.name')!.textContent!.trim(),
      // "1 420" in the table: digits only.
      points: Number(tr.querySelector('td.points')!.textContent!.replace(/[^\d-]/g, '')),
      tied: !!tr.querySelector('.tie'),
    })),
  );
}

async function saved(page: Page, button: string): Promise<{ name: string; text: string }> {
  const [download]: [Download, void] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: fs.readFileSync(file, 'utf8') };
}

/** Parses the export's CSV (no quoted commas in the demo's names). */
function csvRows(text: string) {
  const lines = text.split('\r\n');
  expect(lines.at(-1)).toBe('');
  return { header: lines[0], rows: lines.slice(1, -1).map((l) => l.split(',')) };
}

function expectSame(csv: string[][], shown: Awaited<ReturnType<typeof shownRows>>) {
  expect(csv.length).toBe(shown.length);
  csv.forEach(([rank, member, name, points, tied], i) => {
    const row = shown[i];
    expect({ rank: Number(rank), member, name: name || member, points: Number(points), tied: tied === 'true' }).toEqual(row);
  });
}

test('the board page exports the rows it shows as CSV and JSON, "Show more" rows included', async ({ page }) => {
  await page.goto('/b/demo');
  await hydrated(page);
  const period = (await page.locator('table.ranking caption').textContent())!.split('— ')[1].trim();
  await page.getByRole('link', { name: 'Show more' }).click();
  await expect(page.locator('table.ranking tbody tr')).toHaveCount(20);
  const shown = await shownRows(page);

  const csv = await saved(page, 'Export CSV');
  expect(csv.name).toBe(`demo-${period}-standings.csv`);
  const { header, rows } = csvRows(csv.text);
  expect(header).toBe('rank,member,display_name,points,tied,prize');
  expectSame(rows, shown);
  // The demo's ties: 1, 2, 2, 4.
  expect(rows.slice(0, 4).map((r) => r[0])).toEqual(['1', '2', '2', '4']);
  expect(rows[0].slice(1, 4)).toEqual(['u1001', 'Ada Lovelace', '1420']);

  const json = await saved(page, 'Export JSON');
  expect(json.name).toBe(`demo-${period}-standings.json`);
  const file = JSON.parse(json.text);
  expect(file.board).toBe('demo');
  expect(file.period).toBe(period);
  expect(file.entries.map((e: any) => ({ rank: e.rank, member: e.member, name: e.display_name ?? e.member, points: e.points, tied: e.tied })))
    .toEqual(shown);
});

test('the console\'s period page exports its leaders as CSV and JSON', async ({ page }) => {
  await page.goto('/admin/login');
  await hydrated(page);
  await page.getByLabel('Username').fill(admin);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText(`Signed in as admin:${admin}`);
  await page.goto('/admin/b/demo/current');
  await hydrated(page);
  const shown = await shownRows(page);
  expect(shown.length).toBeGreaterThan(3);

  const csv = await saved(page, 'Export CSV');
  expect(csv.name).toMatch(/^demo-\d{4}-W\d{2}-standings\.csv$/);
  const { header, rows } = csvRows(csv.text);
  expect(header).toBe('rank,member,display_name,points,tied,prize');
  expectSame(rows, shown);

  const json = JSON.parse((await saved(page, 'Export JSON')).text);
  expect(json.board).toBe('demo');
  expect(json.entries.map((e: any) => e.member)).toEqual(shown.map((r) => r.member));
});
