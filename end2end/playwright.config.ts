import { defineConfig } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The suite runs the real release binary (built by scripts/build; `laurel serve --demo`) with
// Debian's Chromium against the Redis that scripts/test started, under a key prefix and a SQLite
// ledger of its own, which global-teardown.ts removes; tests/support.ts runs the binary's CLI for
// tokens and keys. The values are put in the environment once, by the main process, so workers and
// the teardown see the same ones. Screenshots go to artifacts/.
const port = Number(process.env.LAUREL_E2E_PORT ?? 3300);
process.env.LAUREL_E2E_PREFIX ??= `e2e-${process.pid}-${Date.now()}`;
process.env.LAUREL_E2E_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'laurel-e2e-'));
// The key contestant links are signed with, shared by the server and `laurel contestant-link`.
process.env.LAUREL_LINK_SECRET ??= `e2e-link-secret-${process.pid}-${Date.now()}-0123456789abcdef`;
const redisUrl = process.env.LAUREL_TEST_REDIS_URL;
if (!redisUrl) throw new Error('LAUREL_TEST_REDIS_URL is not set: run the suite with scripts/test');

export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  globalTeardown: './global-teardown.ts',
  timeout: 30_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      // Debian's Chromium: Playwright never downloads a browser here.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `${path.resolve(__dirname, '../target/release/laurel')} serve --demo`,
    url: `http://127.0.0.1:${port}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      LAUREL_ADDR: `127.0.0.1:${port}`,
      LAUREL_REDIS_URL: redisUrl,
      LAUREL_DATABASE_URL: `sqlite://${process.env.LAUREL_E2E_DIR}/ledger.db`,
      LAUREL_KEY_PREFIX: process.env.LAUREL_E2E_PREFIX,
      LAUREL_LINK_SECRET: process.env.LAUREL_LINK_SECRET,
    },
  },
});
