import { expect, test, type Page } from '@playwright/test';
import { cli, createAdmin, createBoard, send } from './support';

// Contest mode on the real binary: an admin freezes a board publicly from the console; points
// sent afterwards count (the console shows them) but the public board keeps the standings of the
// freeze under a banner, a contestant's own link shows their live points and what is pending;
// stepwise reveals from the console make the public board catch up.

const password = 'correct horse battery';
const slug = `contest-${Date.now()}`;
let key = '';

/** Opens a console step's confirmation and confirms it. */
async function step(page: Page, label: string, name: string) {
  const panel = page.locator(`details[data-step="${label}"]`);
  await panel.locator('summary').click();
  await panel.locator(`button[data-confirm="${name}"]`).click();
}

test.beforeAll(async ({ request }) => {
  createAdmin('cora', password);
  key = await createBoard(request, slug, { prizes: [{ from_rank: 1, to_rank: 1, prize: 'Cup' }] });
  await send(request, key, slug, [
    { event_id: 'c1', member: 'alice', delta: 50 },
    { event_id: 'c2', member: 'bob', delta: 30 },
  ]);
});

test('a public freeze shows a banner and holds the public standings until the reveal', async ({ page, request, baseURL }) => {
  await page.goto('/admin/login');
  await page.getByLabel('Username').fill('cora');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/admin$/);

  await page.goto(`/admin/b/${slug}/current`);
  await page.waitForLoadState('networkidle');
  await step(page, 'Freeze publicly…', 'public-freeze');
  await expect(page.getByTestId('outcome')).toContainText('The public now sees the standings as they are now');
  await expect(page.getByTestId('public-freeze')).toContainText('Publicly frozen since');

  // Bob overtakes Alice after the freeze: it counts, the console shows it live.
  await send(request, key, slug, [{ event_id: 'c3', member: 'bob', delta: 40 }]);
  await page.reload();
  await expect(page.locator('table.ranking tbody tr').first()).toHaveAttribute('data-member', 'bob');

  // The public board: the banner, and the standings of the freeze.
  const visitor = await page.context().browser()!.newContext({ baseURL });
  const board = await visitor.newPage();
  await board.goto(`/b/${slug}`);
  await expect(board.getByTestId('public-freeze')).toContainText('Standings frozen');
  await expect(board.locator('table.ranking tbody tr').first()).toHaveAttribute('data-member', 'alice');
  await expect(board.locator('tr[data-member="bob"] td.points')).toHaveText('30');
  await board.screenshot({ path: 'artifacts/public-freeze.png', fullPage: true });

  // Bob's own link: his live points and one entry not public yet; Alice's are not shown to him.
  await board.goto(cli('contestant-link', '--member', 'bob', '--hours', '1', '--base-url', baseURL!));
  await board.goto(`/b/${slug}`);
  await expect(board.getByTestId('my-live')).toContainText('Your live points: 70 (1 of your entries is not public yet)');
  await expect(board.locator('tr[data-member="bob"] td.points')).toHaveText('30');

  // Stepwise from the console: Bob (below the prize) first, then nothing is left and it ends.
  await step(page, 'Reveal next…', 'reveal-next');
  await expect(page.getByTestId('outcome')).toContainText('Revealed bob; 0 still to reveal.');
  await board.reload();
  await expect(board.locator('table.ranking tbody tr').first()).toHaveAttribute('data-member', 'bob');
  await step(page, 'Reveal all…', 'reveal-all');
  await expect(page.getByTestId('outcome')).toContainText('the public sees the live standings');
  await expect(page.getByTestId('public-freeze')).toHaveCount(0);
  await board.reload();
  await expect(board.getByTestId('public-freeze')).toHaveCount(0);
  await expect(board.locator('tr[data-member="bob"] td.points')).toHaveText('70');
  await visitor.close();
});
