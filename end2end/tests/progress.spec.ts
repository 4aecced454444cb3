import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cli, createAdmin, createBoard, send } from './support';

// Progress with numbers on the real binary: an admin settles a period of many members from the
// console and, while it runs, reads how far it is in a bar with numbers (polled from the server),
// then each phase's final numbers; `laurel export` and `laurel rebuild` print plain progress
// lines on stderr when it is not a terminal, and their results on stdout as before.

const password = 'numbers while it works';
const slug = `e2e-progress-${Date.now().toString(36)}`;
const MEMBERS = 120_000;

/** A comma-grouped count, as the console writes it. */
const grouped = (n: number) => n.toLocaleString('en-US');

test.beforeAll(() => {
  createAdmin('pia', password);
});

test('a settlement shows its numbers while it runs and when it is done; the CLI prints plain lines', async ({ page }) => {
  test.setTimeout(240_000);
  const key = await createBoard(page.request, slug, {
    max_points: 1_000_000,
    prizes: [{ from_rank: 1, to_rank: 3, prize: 'Gold' }],
  });
  for (let start = 0; start < MEMBERS; start += 1000) {
    const events = Array.from({ length: 1000 }, (_, i) => ({
      event_id: `p${start + i}`,
      member: `m${String(start + i).padStart(6, '0')}`,
      delta: start + i + 1, // no ties: three prizes
    }));
    await send(page.request, key, slug, events);
  }
  const period = (await (await page.request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  const admin = { Authorization: `Bearer ${cli('admin', 'token')}` };
  const frozen = await page.request.post(`/api/v1/boards/${slug}/periods/${period}/freeze`, { headers: admin });
  expect(frozen.status()).toBe(200);

  await page.goto('/admin/login');
  await page.waitForLoadState('networkidle');
  await page.getByLabel('Username').fill('pia');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in')).toHaveText('Signed in as admin:pia');
  await page.goto(`/admin/b/${slug}/${period}`);
  await page.waitForLoadState('networkidle');
  await expect(page.getByTestId('state')).toHaveText('frozen');

  // Every reading the page shows while the settlement runs, as the bar and its text say it.
  await page.evaluate(() => {
    const seen: { value: string | null; max: string | null; text: string }[] = [];
    (window as any).progressSeen = seen;
    new MutationObserver(() => {
      for (const p of document.querySelectorAll('p.job-progress')) {
        const bar = p.querySelector('progress');
        const text = (p.textContent ?? '').trim();
        if (seen.length === 0 || seen[seen.length - 1].text !== text) {
          seen.push({ value: bar?.getAttribute('value') ?? null, max: bar?.getAttribute('max') ?? null, text });
        }
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });

  type Reading = { value: string | null; max: string | null; text: string };
  const readings = async (): Promise<Reading[]> => page.evaluate(() => (window as any).progressSeen.splice(0));
  /** Each reading is one of the job's phases, with a count within its total when it has one. */
  const wellFormed = (shown: Reading[], running: string, units: string) => {
    for (const r of shown) {
      expect(r.text.startsWith(`${running} — `), r.text).toBe(true);
      if (r.value !== null) {
        expect(Number(r.value)).toBeLessThanOrEqual(Number(r.max));
        expect(r.text).toMatch(new RegExp(`: [\\d,]+ / [\\d,]+ (${units}) \\(\\d+ %\\)$`));
      }
    }
  };
  const n = grouped(MEMBERS);

  // A rebuild from the console: its one phase, and its final numbers.
  const rebuild = page.locator('details[data-step="Rebuild…"]');
  await rebuild.locator('summary').click();
  let started = Date.now();
  await rebuild.locator('button[data-confirm="rebuild"]').click();
  await expect(page.getByTestId('outcome')).toContainText(`Rebuilt ${MEMBERS} members`, { timeout: 60_000 });
  const rebuildTook = Date.now() - started;
  const rebuilt = page.locator('div.job-progress.done');
  await expect(rebuilt).toContainText('Rebuilt:');
  await expect(rebuilt).toContainText(`projecting: ${n} / ${n} members (100 %)`);
  const whileRebuilding = await readings();
  console.log(`rebuilt ${MEMBERS} members in ${rebuildTook} ms; readings shown: ${JSON.stringify(whileRebuilding)}`);
  wellFormed(whileRebuilding, 'Rebuilding', 'members');
  if (rebuildTook > 1500) expect(whileRebuilding.length).toBeGreaterThan(0);

  const settle = page.locator('details[data-step="Settle…"]');
  await settle.locator('summary').click();
  started = Date.now();
  await settle.locator('button[data-confirm="settle"]').click();
  await expect(page.getByTestId('state')).toHaveText('settled', { timeout: 120_000 });
  const took = Date.now() - started;

  // Done: each counted phase's final numbers, N / N (100 %).
  const done = page.locator('div.job-progress.done');
  await expect(done).toContainText('Settled:');
  await expect(done).toContainText(`reading totals: ${n} / ${n} members (100 %)`);
  await expect(done).toContainText(`writing standings: ${n} / ${n} members (100 %)`);
  await expect(done).toContainText(`writing the member directory: ${n} / ${n} members (100 %)`);
  await expect(done).toContainText('writing rewards: 3 / 3 rewards (100 %)');
  await expect(page.getByTestId('outcome')).toContainText('is now settled');

  // While it ran: the readings the page showed, each a phase of this settlement with its count.
  const whileSettling = await readings();
  console.log(`settled ${MEMBERS} members in ${took} ms; readings shown: ${JSON.stringify(whileSettling)}`);
  wellFormed(whileSettling, 'Settling', 'members|rewards');
  // A settlement that outlasts two polls is seen at work at least once.
  if (took > 1500) expect(whileSettling.length).toBeGreaterThan(0);

  // The CLI, its stderr not a terminal: plain lines; stdout as before.
  const env = {
    ...process.env,
    LAUREL_REDIS_URL: process.env.LAUREL_TEST_REDIS_URL,
    LAUREL_DATABASE_URL: `sqlite://${process.env.LAUREL_E2E_DIR}/ledger.db`,
    LAUREL_KEY_PREFIX: process.env.LAUREL_E2E_PREFIX,
  };
  const laurel = path.resolve(__dirname, '../../target/release/laurel');
  // Its progress lines (stderr also carries the log).
  const run = (...args: string[]) => {
    const r = spawnSync(laurel, args, { env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return { out: r.stdout, err: r.stderr.split('\n').filter((l) => l.startsWith(`${args[0]} `)) };
  };
  const file = path.join(process.env.LAUREL_E2E_DIR as string, `${slug}.json`);
  const exported = run('export', '--board', slug, '--period', period, '--out', file);
  expect(exported.out).toBe('');
  const rows = MEMBERS * 3; // an entry, a total and a standing per member
  expect(exported.err).toContain('export reading the period…');
  expect(exported.err).toContain(`export writing: ${rows}/${rows} rows (100%)`);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(json.settlement.standings.length).toBe(MEMBERS);

  const cliRebuild = run('rebuild', '--board', slug, '--period', period);
  expect(cliRebuild.out).toMatch(new RegExp(`^rebuilt ${slug} ${period}: ${MEMBERS} members in \\d+ ms\\n$`));
  expect(cliRebuild.err).toContain(`rebuild projecting: ${MEMBERS}/${MEMBERS} members (100%)`);
  for (const line of cliRebuild.err) expect(line).toMatch(/^rebuild projecting: \d+\/\d+ members \(\d+%\)$/);
});
