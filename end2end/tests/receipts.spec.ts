import { expect, test, type Download } from '@playwright/test';
import * as fs from 'node:fs';
import { cli, createBoard, send } from './support';

// Receipts (issue 46): a contestant downloads their receipt from their page once the period is
// settled and checks it on /verify — in the browser, no server call — pasted, chosen as a file or
// dropped; a tampered copy is refused, naming what does not hold.

const slug = 'e2e-receipts';

test('a downloaded receipt verifies on /verify and a tampered one is refused', async ({ page }) => {
  const key = await createBoard(page.request, slug, {
    prizes: [{ from_rank: 1, to_rank: 1, prize: 'Gold' }],
  });
  await send(page.request, key, slug, [
    { event_id: 'r1', member: 'u1', delta: 50 },
    { event_id: 'r2', member: 'u2', delta: 30 },
    { event_id: 'r3', member: 'u3', delta: 20 },
  ]);
  const period = (await (await page.request.get(`/api/v1/boards/${slug}`)).json()).current_period as string;
  const admin = { Authorization: `Bearer ${cli('admin', 'token')}` };
  for (const step of ['freeze', 'settle']) {
    const res = await page.request.post(`/api/v1/boards/${slug}/periods/${period}/${step}`, { headers: admin });
    expect(res.status(), step).toBe(200);
  }

  await page.goto(`/b/${slug}/${period}/m/u1`);
  await page.waitForLoadState('networkidle');
  const [download]: [Download, void] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download my receipt' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`receipt-${slug}-${period}-r1-u1.json`);
  const receipt = fs.readFileSync(await download.path(), 'utf8');
  expect(JSON.parse(receipt).inclusion.leaf).toEqual({ ranking: 'board', member: 'u1', rank: 1, points: 50, prize: 'Gold' });

  await page.goto('/verify');
  await page.waitForLoadState('networkidle');
  // Nothing may reach the server while checking.
  const calls: string[] = [];
  page.on('request', (r) => calls.push(r.url()));
  const input = page.getByTestId('receipt-input');
  await input.fill(receipt);
  const verdict = page.getByTestId('verdict');
  await expect(verdict).toHaveAttribute('data-ok', 'true');
  await expect(verdict).toContainText('The receipt verifies');
  await expect(page.getByTestId('standing')).toContainText('u1: rank 1 with 50 points, prize Gold');
  await expect(page.getByTestId('chain').locator('li')).toHaveCount(1);

  const tampered = JSON.parse(receipt);
  tampered.inclusion.leaf.points = 51;
  await input.fill(JSON.stringify(tampered));
  await expect(verdict).toHaveAttribute('data-ok', 'false');
  await expect(page.getByTestId('fails')).toContainText('lead to root');

  // The receipt chosen as a file verifies like the pasted one; a tampered file dropped on the
  // checker replaces it and is refused.
  await input.fill('');
  await expect(verdict).toHaveCount(0);
  await page.getByTestId('receipt-file').setInputFiles({
    name: 'receipt.json',
    mimeType: 'application/json',
    buffer: Buffer.from(receipt),
  });
  await expect(verdict).toHaveAttribute('data-ok', 'true');
  await expect(input).toHaveValue(receipt);
  const dropped = await page.evaluateHandle((text) => {
    const files = new DataTransfer();
    files.items.add(new File([text], 'tampered.json', { type: 'application/json' }));
    return files;
  }, JSON.stringify(tampered));
  await page.getByTestId('receipt-drop').dispatchEvent('drop', { dataTransfer: dropped });
  await expect(verdict).toHaveAttribute('data-ok', 'false');
  await expect(input).toHaveValue(JSON.stringify(tampered));
  expect(calls).toEqual([]);
});
