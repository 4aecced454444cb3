import { expect, test, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import { createBoard, send } from './support';

// Prize zones in the ranking (issue 41): where the board's rules define prizes, each prize rank
// has its medal beside the rank (gold, silver, bronze by prize line), and a line marks each prize
// boundary — above the first row of each zone and above the first row past the last one. Ties
// at a boundary share their zone. The export names each row's prize.

const slug = `e2e-prizes-${Date.now()}`;

test.beforeAll(async ({ request }) => {
  const key = await createBoard(request, slug, {
    prizes: [
      { from_rank: 1, to_rank: 1, prize: 'Gold cup' },
      { from_rank: 2, to_rank: 3, prize: 'Silver pin' },
      { from_rank: 4, to_rank: 5, prize: 'Bronze badge' },
    ],
  });
  // Ranks 1, 2, 3, 3, 5, 6, 7 (shared ties).
  const points: [string, number][] = [['p1', 70], ['p2', 60], ['p3', 50], ['p4', 50], ['p5', 30], ['p6', 20], ['p7', 10]];
  await send(request, key, slug, points.map(([member, delta]) => ({ event_id: `z-${member}`, member, delta })));
});

async function hydrated(page: Page) {
  await expect(page.locator('html[data-hydrated]')).toBeAttached({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
}

test('each prize rank has its medal and a line marks each prize boundary', async ({ page }) => {
  await page.goto(`/b/${slug}`);
  await hydrated(page);
  const rows = page.locator('table.ranking tbody tr');
  await expect(rows).toHaveCount(7);
  const marks = await rows.evaluateAll((trs) =>
    trs.map((tr) => ({
      member: tr.getAttribute('data-member'),
      rank: Number(tr.getAttribute('data-rank')),
      zone: tr.getAttribute('data-zone'),
      prize: tr.getAttribute('data-prize'),
      medal: tr.querySelector('td.rank .medal')?.className ?? null,
      edge: tr.classList.contains('prize-edge'),
      // The line is drawn: the rank cell's top border.
      line: getComputedStyle(tr.querySelector('td.rank')!).borderTopStyle,
      said: tr.querySelector('td.rank')!.textContent,
    })),
  );
  // Equal points: the two members of rank 3 in either order.
  const order = marks.map((m) => m.member);
  expect([...order.slice(2, 4)].sort()).toEqual(['p3', 'p4']);
  const expected = [
    ['p1', 1, 'gold', 'Gold cup', false],
    ['p2', 2, 'silver', 'Silver pin', true],
    [order[2], 3, 'silver', 'Silver pin', false],
    [order[3], 3, 'silver', 'Silver pin', false],
    ['p5', 5, 'bronze', 'Bronze badge', true],
    ['p6', 6, null, null, true],
    ['p7', 7, null, null, false],
  ] as const;
  expected.forEach(([member, rank, zone, prize, edge], i) => {
    const m = marks[i];
    expect({ member: m.member, rank: m.rank, zone: m.zone, prize: m.prize, edge: m.edge }).toEqual({ member, rank, zone, prize, edge });
    expect(m.medal).toBe(zone ? `medal medal-${zone}` : null);
    expect(m.line, `${member}: a line above only at a boundary`).toBe(edge ? 'solid' : 'none');
    // Said to a screen reader too.
    if (prize) expect(m.said).toContain(`wins ${prize}`);
  });
  // The medal is beside the rank, visible.
  await expect(rows.first().locator('.medal')).toBeVisible();
  await page.screenshot({ path: 'artifacts/prize-zones.png', fullPage: true });

  // The export names each row's prize.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  const lines = fs.readFileSync(await download.path(), 'utf8').split('\r\n');
  expect(lines.slice(1, 8).map((l) => l.split(',').at(-1))).toEqual(['Gold cup', 'Silver pin', 'Silver pin', 'Silver pin', 'Bronze badge', '', '']);
});

test('a board without prizes has no medal and no boundary line', async ({ page, request }) => {
  const plain = `${slug}-none`;
  const key = await createBoard(request, plain);
  await send(request, key, plain, [{ event_id: 'n1', member: 'n1', delta: 5 }, { event_id: 'n2', member: 'n2', delta: 3 }]);
  await page.goto(`/b/${plain}`);
  await hydrated(page);
  await expect(page.locator('table.ranking tbody tr').first()).toBeVisible();
  await expect(page.locator('table.ranking .medal')).toHaveCount(0);
  await expect(page.locator('table.ranking tr.prize-edge')).toHaveCount(0);
});
