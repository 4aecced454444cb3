import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { APIRequestContext } from '@playwright/test';

// Runs the real binary's CLI against the same stores as the server under test.
const laurel = path.resolve(__dirname, '../../target/release/laurel');
const stores = {
  ...process.env,
  LAUREL_REDIS_URL: process.env.LAUREL_TEST_REDIS_URL,
  LAUREL_DATABASE_URL: `sqlite://${process.env.LAUREL_E2E_DIR}/ledger.db`,
  LAUREL_KEY_PREFIX: process.env.LAUREL_E2E_PREFIX,
};
export const cli = (...args: string[]) => execFileSync(laurel, args, { env: stores, encoding: 'utf8' }).trim();

/** Creates a console account with `laurel admin create` (the password through its env var). */
export const createAdmin = (username: string, password: string) =>
  execFileSync(laurel, ['admin', 'create', '--username', username], {
    env: { ...stores, LAUREL_ADMIN_PASSWORD: password },
    encoding: 'utf8',
  });

/** Creates an incr board through the API and returns an ingest key for it. */
export async function createBoard(request: APIRequestContext, slug: string, extra: object = {}): Promise<string> {
  const admin = cli('admin', 'token');
  const created = await request.post('/api/v1/boards', {
    headers: { Authorization: `Bearer ${admin}` },
    data: {
      slug, title: `Board ${slug}`, cadence: 'weekly', time_zone: 'UTC', operator: 'incr',
      tie_policy: 'shared', max_points: 100000, ...extra,
    },
  });
  if (created.status() !== 201) throw new Error(`board ${slug}: ${created.status()} ${await created.text()}`);
  return cli('apikey', 'create', '--board', slug);
}

/** Sends point events; fails the test unless every one is applied. */
export async function send(request: APIRequestContext, key: string, slug: string, events: object[]) {
  const res = await request.post(`/api/v1/boards/${slug}/events`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { events },
  });
  if (res.status() !== 200) throw new Error(`events: ${res.status()} ${await res.text()}`);
  const results = (await res.json()).results.map((r: any) => r.result);
  if (results.some((r: string) => r !== 'applied')) throw new Error(`not all applied: ${results}`);
}
