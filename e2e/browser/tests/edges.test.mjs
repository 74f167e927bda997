// The explorer's rough edges (issue 36, item 4), measured in the browser at
// a laptop's 1366 × 900 and a phone's 360 × 740:
//
// - a monster's loot table shows every column without a scroll inside it
//   at 1366 (it had 851 px of content in a 667 px box, 171 px of margin
//   unused each side); on a phone it fits the screen with its three
//   columns (Item, Chance, Coins per kill), the rest left out as before;
// - the collections menu shows all 13 links at 1366, none cut, the
//   current one whole, and the header the same height on every page; on a
//   phone the menu scrolls, the current link is whole and clear of the
//   fades, and the line never starts mid-word ("ocations").
//
// Every page here is one request (viewQuery), passes axe, logs no error,
// and asks nothing of another host.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, byTestId, launchBrowser, openPage, screens, screenshot, startGateway, viewQuery } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'edges-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

const { laptop, phone } = screens;

// The lists' paths, in the menu's order.
const lists = ['items', 'monsters', 'quests', 'base-camps', 'discovery', 'mining', 'cooking', 'fletching',
  'farming', 'forestry', 'event-chests', 'secret-rares', 'world-bosses'];

// open goes to path and waits for its view, counting the GraphQL requests it
// sends: each view sends one.
async function open(page, path) {
  const gets = [];
  const onRequest = (req) => {
    if (viewQuery(req)) gets.push(viewQuery(req));
  };
  page.on('request', onRequest);
  await page.goto(`${gateway.url}${path}`);
  await page.waitForSelector('main:not([aria-busy]) h1');
  page.off('request', onRequest);
  assert.equal(gets.length, 1, `${path}: one request, got ${gets}`);
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

// nav measures the collections menu: its list's scroll, the fades' widths
// where they show, and each link's box against the list's and the window's.
const nav = (page) => page.evaluate(() => {
  const el = document.querySelector('nav[aria-label="Collections"]');
  const ul = el.querySelector('ul');
  const r = ul.getBoundingClientRect();
  const fade = (side) => (getComputedStyle(el, side).opacity === '1' ? parseFloat(getComputedStyle(el, side).width) : 0);
  return {
    scrollWidth: ul.scrollWidth,
    clientWidth: ul.clientWidth,
    left: r.left,
    right: r.right,
    padding: parseFloat(getComputedStyle(ul).paddingLeft),
    before: fade('::before'),
    after: fade('::after'),
    window: document.documentElement.clientWidth,
    header: document.querySelector('.site-header').getBoundingClientRect().height,
    links: [...ul.querySelectorAll('a')].map((a) => {
      const b = a.getBoundingClientRect();
      return { text: a.textContent.trim(), left: b.left, right: b.right, current: a.getAttribute('aria-current') === 'page' };
    }),
  };
});

// settleNav waits for the fades to show what the list's scroll says.
async function settleNav(page) {
  await page.waitForFunction(() => {
    const el = document.querySelector('nav[aria-label="Collections"]');
    return [['::before', 'data-more-before'], ['::after', 'data-more-after']].every(([side, attr]) =>
      getComputedStyle(el, side).opacity === (el.hasAttribute(attr) ? '1' : '0'));
  });
}

test('at 1366 px the collections menu shows all 13 links whole on every page, the current one marked', async () => {
  const { page, check } = await openPage(browser, laptop);
  let height = null;
  for (const [i, path] of lists.entries()) {
    await open(page, `/explorer/${path}`);
    await settleNav(page);
    const m = await nav(page);
    assert.equal(m.links.length, 13);
    assert.ok(m.scrollWidth <= m.clientWidth, `/explorer/${path}: the menu scrolls (${m.scrollWidth}px in ${m.clientWidth}px)`);
    for (const l of m.links) {
      assert.ok(l.left >= m.left - 0.5 && l.right <= m.right + 0.5 && l.left >= 0 && l.right <= m.window,
        `/explorer/${path}: "${l.text}" at ${l.left}–${l.right}px, the menu is ${m.left}–${m.right}px`);
    }
    assert.equal(m.before + m.after, 0, `/explorer/${path}: no fade over the links`);
    assert.deepEqual(m.links.filter((l) => l.current).map((l) => l.text), [m.links[i].text], `/explorer/${path}: the current link`);
    height ??= m.header;
    assert.equal(m.header, height, `/explorer/${path}: the header is as high as on every page`);
    if (i === 0) assert.deepEqual(await axeViolations(page), [], 'axe');
  }
  await screenshot(page, 'edges-laptop-nav');
  check();
});

test('at 360 px the collections menu scrolls, the current link whole and clear of the fades, never starting mid-word', async () => {
  const { page, check } = await openPage(browser, phone);
  for (const [i, path] of lists.entries()) {
    await open(page, `/explorer/${path}`);
    await settleNav(page);
    const m = await nav(page);
    assert.ok(m.scrollWidth > m.clientWidth, 'the 13 links do not fit a phone: the line scrolls');
    const start = m.left + Math.max(m.padding, m.before);
    const end = m.right - (m.after || m.padding);
    const current = m.links[i];
    assert.ok(current.current, `/explorer/${path}: "${current.text}" is marked`);
    assert.ok(current.left >= start - 0.5 && current.right <= end + 0.5,
      `/explorer/${path}: "${current.text}" at ${current.left}–${current.right}px, clear of the fades (${start}–${end}px)`);
    // The line starts with a whole link: none is cut at its start, and
    // none shows its end left of the first whole one ("ocations").
    for (const l of m.links) {
      assert.ok(l.right <= m.left + 0.5 || l.left >= start - 0.5,
        `/explorer/${path}: "${l.text}" is cut at the menu's start (${l.left}–${l.right}px, the line starts at ${start}px)`);
    }
    assert.ok((await overflow(page)) <= 0, `/explorer/${path} is ${await overflow(page)}px wider than the screen`);
    if (i === 0 || i === lists.length - 1) assert.deepEqual(await axeViolations(page), [], `/explorer/${path}: axe`);
  }
  await screenshot(page, 'edges-phone-nav');

  // A swipe rests where a link starts, too.
  await page.locator('#site-nav-list').evaluate((ul) => { ul.scrollLeft = 0; ul.scrollBy(137, 0); });
  await settleNav(page);
  const m = await nav(page);
  const start = m.left + Math.max(m.padding, m.before);
  for (const l of m.links) {
    assert.ok(l.right <= m.left + 0.5 || l.left >= start - 0.5, `after a scroll "${l.text}" is cut at the menu's start (${l.left}–${l.right}px)`);
  }
  check();
});
