// The explorer's rough edges (issue 36, item 4), measured in the browser at
// a laptop's 1366 × 900 and a phone's 360 × 740:
//
// - a monster's loot table shows every column without a scroll inside it
//   at 1366 (it had 851 px of content in a 667 px box, 171 px of margin
//   unused each side); on a phone it fits the screen with its three
//   columns (Item, Chance, Coins per kill), the rest left out as before.
//
// Every page here is one GET, passes axe, logs no error, and asks nothing
// of another host.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, launchBrowser, openPage, screenshot, startGateway } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'edges-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

const laptop = { viewport: { width: 1366, height: 900 } };
const phone = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };
const byTestId = (id) => `[data-testid="${id}"]`;

// open goes to path and waits for its view, counting the GraphQL GETs it
// sends: each view sends one.
async function open(page, path) {
  const gets = [];
  const onRequest = (req) => {
    const u = new URL(req.url());
    if (u.pathname === '/graphql' && req.method() === 'GET') gets.push(u.searchParams.get('operationName'));
  };
  page.on('request', onRequest);
  await page.goto(`${gateway.url}${path}`);
  await page.waitForSelector('main:not([aria-busy]) h1');
  page.off('request', onRequest);
  assert.equal(gets.length, 1, `${path}: one GET, got ${gets}`);
}

// overflow is how many pixels the page is wider than its window.
const overflow = (page) => page.evaluate(() =>
  document.documentElement.scrollWidth - Math.min(window.innerWidth, document.documentElement.clientWidth));

// lootGeometry measures the loot table in its scrolling box: the box's
// scrollWidth and clientWidth, and each shown column's header with how
// far its right edge lies past the box's (hidden columns, display: none,
// are left out).
const lootGeometry = (page) => page.$eval(byTestId('loot-table'), (table) => {
  const box = table.closest('.table-scroll');
  const edge = box.getBoundingClientRect().right;
  return {
    scrollWidth: box.scrollWidth,
    clientWidth: box.clientWidth,
    columns: [...table.querySelectorAll('thead th')]
      .filter((th) => getComputedStyle(th).display !== 'none')
      .map((th) => ({ label: th.querySelector('button').firstChild.textContent.trim(), past: th.getBoundingClientRect().right - edge })),
  };
});

async function checkLoot(page, path, want) {
  const g = await lootGeometry(page);
  assert.ok(g.scrollWidth <= g.clientWidth, `${path}: the loot table has ${g.scrollWidth}px of content in a ${g.clientWidth}px box`);
  assert.deepEqual(g.columns.map((c) => c.label), want, `${path}: the columns shown`);
  for (const c of g.columns) assert.ok(c.past <= 0.5, `${path}: ${c.label} ends ${c.past}px past the table's box`);
  assert.ok((await overflow(page)) <= 0, `${path} is ${await overflow(page)}px wider than the window`);
}

const allColumns = ['Item', 'Amount', 'Chance', 'With luck', 'Extreme luck', 'Drop rarity', 'Value', 'Coins per kill'];

// Monster 42 is the page the review found; then every monster of the
// list's first page, so that a long name anywhere is met.
test('at 1366 px a monster\'s loot table shows every column, Value and Coins per kill too, without scrolling', async () => {
  const { page, check } = await openPage(browser, laptop);
  await open(page, '/explorer/monsters/42');
  await checkLoot(page, '/explorer/monsters/42', allColumns);
  assert.deepEqual(await axeViolations(page), [], 'axe');
  await screenshot(page, 'edges-laptop-loot');

  await open(page, '/explorer/monsters');
  const hrefs = await page.$$eval(byTestId('list-link'), (as) => as.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.length >= 20, `the first page lists ${hrefs.length} monsters`);
  for (const href of hrefs) {
    await open(page, href);
    if (await page.$(byTestId('loot-table'))) await checkLoot(page, href, allColumns);
  }
  check();
});

test('at 360 px a monster\'s loot table fits the screen: Item, Chance and Coins per kill, nothing cut', async () => {
  const { page, check } = await openPage(browser, phone);
  await open(page, '/explorer/monsters/42');
  await checkLoot(page, '/explorer/monsters/42', ['Item', 'Chance', 'Coins per kill']);
  assert.deepEqual(await axeViolations(page), [], 'axe');
  await screenshot(page, 'edges-phone-loot');
  check();
});
