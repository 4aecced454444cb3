import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';

// Removes what this run created: its Redis keys (by its own prefix, never FLUSHDB) and its ledger.
export default function teardown() {
  const url = process.env.LAUREL_TEST_REDIS_URL!;
  const prefix = process.env.LAUREL_E2E_PREFIX!;
  const keys = execFileSync('redis-cli', ['-u', url, '--scan', '--pattern', `${prefix}:*`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  for (let i = 0; i < keys.length; i += 500) {
    execFileSync('redis-cli', ['-u', url, 'UNLINK', ...keys.slice(i, i + 500)]);
  }
  fs.rmSync(process.env.LAUREL_E2E_DIR!, { recursive: true, force: true });
}
