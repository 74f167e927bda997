// The explorer and the playground on a small phone (360 × 740): no page is
// wider than the screen, whatever its kind, nor a table (but a list's)
// wider than its box; the site's navigation shows that it scrolls; a list
// keeps its names and its sorted column in view and folds its filters
// behind a "Filters (n)" button; the home page shows the world bosses
// first; the playground puts its result under its editor. Every explorer
// page passes axe here too.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, byTestId, launchBrowser, openPage, screenshot, startGateway } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'phone-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

const phone = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };

// The lists' paths, one for each of the 13 kinds.
const lists = ['items', 'monsters', 'quests', 'base-camps', 'discovery', 'mining', 'cooking', 'fletching',
  'farming', 'forestry', 'event-chests', 'secret-rares', 'world-bosses'];

async function settle(page) {
  await page.waitForSelector('main:not([aria-busy]) h1');
}

// overflow is how many pixels the page is wider than the screen. A phone's
// browser zooms out to fit a page that is too wide, which widens
// innerWidth to the page's width; so the page is measured against the
// layout viewport's width (clientWidth) as well as innerWidth.
const overflow = (page) => page.evaluate(() =>
  document.documentElement.scrollWidth - Math.min(window.innerWidth, document.documentElement.clientWidth));

// inView reports whether the element is on screen across: within the
// window and within every box that clips it.
const inView = (page, selector) => page.$eval(selector, (el) => {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.left < 0 || r.right > window.innerWidth + 0.5) return false;
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (getComputedStyle(p).overflowX === 'visible') continue;
    const b = p.getBoundingClientRect();
    if (r.left < b.left - 0.5 || r.right > b.right + 0.5) return false;
  }
  return true;
});

// cutTables names the tables, other than a list's, that are wider than
// their box: on a phone their last columns would be cut off. (A list may
// scroll in its box, its names kept in view: tested below.)
const cutTables = (page) => page.$$eval('.table-scroll', (boxes) => boxes
  .filter((b) => b.scrollWidth > b.clientWidth + 1 && !b.querySelector('table.list'))
  .map((b) => `${b.querySelector('table')?.dataset.testid} by ${b.scrollWidth - b.clientWidth}px`));

async function checkPhonePage(page, path, name) {
  assert.ok((await overflow(page)) <= 0, `${path} is ${await overflow(page)}px wider than the 360px screen`);
  assert.deepEqual(await cutTables(page), [], `${path}: tables wider than their box`);
  assert.deepEqual(await axeViolations(page), [], `${path}: no serious or critical axe violation`);
  await screenshot(page, `phone-${name}`);
}

test('at 360 px no page is wider than the screen: home, search, every list and record page, the playground', async () => {
  const { page, check } = await openPage(browser, phone);
  await page.goto(`${gateway.url}/explorer`);
  await settle(page);
  await checkPhonePage(page, '/explorer', 'home');
  await page.goto(`${gateway.url}/explorer/search?q=steel`);
  await settle(page);
  await checkPhonePage(page, '/explorer/search?q=steel', 'search');

  for (const path of lists) {
    await page.goto(`${gateway.url}/explorer/${path}`);
    await settle(page);
    await checkPhonePage(page, `/explorer/${path}`, `list-${path}`);
    // Every record of the first page, so that a long name or a wide value
    // anywhere in the kind is met.
    const hrefs = await page.$$eval(byTestId('list-link'), (as) => as.map((a) => a.getAttribute('href')));
    assert.ok(hrefs.length > 0, `the ${path} list has records`);
    for (const [i, href] of hrefs.entries()) {
      await page.goto(`${gateway.url}${href}`);
      await settle(page);
      if (i === 0) await checkPhonePage(page, href, `page-${path}`);
      else {
        assert.ok((await overflow(page)) <= 0, `${href} is ${await overflow(page)}px wider than the 360px screen`);
        assert.deepEqual(await cutTables(page), [], `${href}: tables wider than their box`);
      }
    }
  }
  check();

  // The playground, with the example's answer in its result pane.
  const pg = await openPage(browser, phone);
  await pg.page.goto(`${gateway.url}/`);
  await pg.page.waitForSelector('.graphiql-query-editor .CodeMirror');
  await pg.page.click('.graphiql-execute-button');
  await pg.page.waitForFunction(() => /"monster"/.test(document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue() ?? ''));
  assert.ok((await overflow(pg.page)) <= 0, `the playground is ${await overflow(pg.page)}px wider than the 360px screen`);
  pg.check();
});

test('on a phone the playground puts its result under its editor, as wide as the screen allows', async () => {
  const { page, check } = await openPage(browser, phone);
  await page.goto(`${gateway.url}/`);
  await page.waitForSelector('.graphiql-query-editor .CodeMirror');
  await page.click('.graphiql-execute-button');
  await page.waitForFunction(() => /"monster"/.test(document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue() ?? ''));
  const [editors, response] = await Promise.all(['.graphiql-editors', '.graphiql-response'].map((s) =>
    page.$eval(s, (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, width: r.width, height: r.height }; })));
  assert.ok(response.top >= editors.bottom, `the result (top ${response.top}) is under the editor (bottom ${editors.bottom})`);
  assert.ok(response.width >= 240, `the result pane is ${response.width}px wide`);
  assert.ok(response.height >= 200 && editors.height >= 200, `the panes are ${editors.height}px and ${response.height}px high`);
  // Its text is laid out in lines, not letter by letter: the first line
  // of the answer is on one row.
  const rows = await page.$eval('.graphiql-response .CodeMirror-line', (el) => el.getClientRects().length);
  assert.equal(rows, 1, 'the answer\'s first line is not wrapped');
  await screenshot(page, 'phone-playground');

  // At a desktop's width the panes are side by side, as before.
  await page.setViewportSize({ width: 1280, height: 800 });
  const [e2, r2] = await Promise.all(['.graphiql-editors', '.graphiql-response'].map((s) =>
    page.$eval(s, (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top }; })));
  assert.ok(r2.left >= e2.right, 'side by side on a wide screen');
  check();
});

test('on a phone the playground\'s buttons are a bar across the top, and its Docs open above the session', async () => {
  const { page, check } = await openPage(browser, phone);
  await page.goto(`${gateway.url}/`);
  await page.waitForSelector('.graphiql-query-editor .CodeMirror');
  const box = (s) => page.$eval(s, (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; });
  const [sidebar, editors] = await Promise.all([box('.graphiql-sidebar'), box('.graphiql-editors')]);
  assert.ok(editors.top >= sidebar.bottom - 1, `the editors (top ${editors.top}) are under the buttons (bottom ${sidebar.bottom})`);
  assert.ok(editors.width >= 320, `the editors are ${editors.width}px wide of 360`);

  await page.click('button[aria-label="Show Documentation Explorer"]');
  await page.waitForSelector('.graphiql-doc-explorer');
  const [plugin, session] = await Promise.all([box('.graphiql-plugin'), box('.graphiql-sessions')]);
  assert.ok(session.top >= plugin.bottom - 1, `the session (top ${session.top}) is under the Docs (bottom ${plugin.bottom})`);
  assert.ok(plugin.width >= 320 && session.width >= 320, `the Docs are ${plugin.width}px and the session ${session.width}px wide`);
  assert.ok(plugin.height >= 150, `the Docs are ${plugin.height}px high`);
  assert.ok((await overflow(page)) <= 0, `the playground is ${await overflow(page)}px wider than the 360px screen with its Docs open`);
  await screenshot(page, 'phone-playground-docs');
  check();
});

test('on a phone the navigation shows that it scrolls, and marks the collection on screen', async () => {
  const { page, check } = await openPage(browser, phone);
  await page.goto(`${gateway.url}/explorer/items`);
  await settle(page);
  const nav = 'nav[aria-label="Collections"]';
  const fade = (side) => page.$eval(nav, (el, s) => getComputedStyle(el, s).opacity, side);
  const list = page.locator(`${nav} ul`);
  assert.ok(await list.evaluate((ul) => ul.scrollWidth > ul.clientWidth), 'the links are wider than the screen');
  await page.waitForSelector(`${nav}[data-more-after]:not([data-more-before])`);
  await page.waitForFunction((sel) => getComputedStyle(document.querySelector(sel), '::after').opacity === '1', nav);
  assert.equal(await fade('::before'), '0', 'no fade at the start, where nothing is cut');
  await screenshot(page, 'phone-nav-start');

  // Scrolled to its end: the fade moves to the start.
  await list.evaluate((ul) => { ul.scrollLeft = ul.scrollWidth; });
  await page.waitForSelector(`${nav}[data-more-before]:not([data-more-after])`);
  await page.waitForFunction((sel) => getComputedStyle(document.querySelector(sel), '::before').opacity === '1' &&
    getComputedStyle(document.querySelector(sel), '::after').opacity === '0', nav);
  await screenshot(page, 'phone-nav-end');

  // A page of a collection at the line's far end: its link is marked and
  // scrolled into view.
  await page.goto(`${gateway.url}/explorer/world-bosses`);
  await settle(page);
  const current = `${nav} a[aria-current="page"]`;
  assert.equal((await page.textContent(current)).trim(), 'World bosses');
  assert.ok(await inView(page, current), 'the current collection\'s link is in view');
  await page.goto(`${gateway.url}/explorer/forestry/1`);
  await settle(page);
  assert.equal((await page.textContent(current)).trim(), 'Forestry trees');
  assert.ok(await inView(page, current), 'a record\'s collection link is in view');

  // On a wide screen that fits the links there is no fade.
  await page.setViewportSize({ width: 1920, height: 900 });
  await page.goto(`${gateway.url}/explorer`);
  await settle(page);
  if (await list.evaluate((ul) => ul.scrollWidth <= ul.clientWidth)) {
    await page.waitForSelector(`${nav}:not([data-more-after]):not([data-more-before])`);
  }
  check();
});

test('on a phone a list keeps its names and its sorted column in view, whatever it is sorted by', async () => {
  const { page, check } = await openPage(browser, phone);
  for (const path of lists) {
    await page.goto(`${gateway.url}/explorer/${path}`);
    await settle(page);
    // Every order the list offers, those of columns a phone hides too.
    const sorts = await page.$$eval('[data-testid^="sort-"]', (as) => as.map((a) => a.getAttribute('href')));
    assert.ok(sorts.length >= 1, `${path} sorts`);
    for (const href of sorts) {
      await page.goto(`${gateway.url}${href}`);
      await settle(page);
      const sorted = 'thead th[aria-sort="ascending"], thead th[aria-sort="descending"]';
      assert.ok(await inView(page, sorted), `${href}: the sorted column is in view`);
      assert.ok(await inView(page, 'thead th:first-child'), `${href}: the name column is in view`);
      assert.ok(await inView(page, `${byTestId('list-table')} tbody tr:first-child th`), `${href}: the first name is in view`);
      assert.ok((await overflow(page)) <= 0, `${href} is ${await overflow(page)}px wider than the screen`);
    }
  }
  await page.goto(`${gateway.url}/explorer/monsters?sort=health&dir=desc`);
  await settle(page);
  await screenshot(page, 'phone-list-sorted-by-extra');
  check();
});

test('on a phone the filters fold behind a "Filters (n)" button', async () => {
  const { page, check } = await openPage(browser, phone);
  await page.goto(`${gateway.url}/explorer/items`);
  await settle(page);
  const toggle = page.locator(byTestId('filters-toggle'));
  assert.equal((await toggle.textContent()).trim(), 'Filters (0)');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.isHidden('#filter-rarity'), true, 'the form is folded');
  // The list is on the first screen.
  const top = await page.$eval(byTestId('list-table'), (t) => t.getBoundingClientRect().top);
  assert.ok(top < 740, `the list starts at ${top}px`);
  await screenshot(page, 'phone-filters-folded');

  // By keyboard: the button opens the form, and Tab goes on into it.
  await toggle.focus();
  await page.keyboard.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.equal(await page.isVisible('#filter-rarity'), true, 'the form is open');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'filter-q', 'Tab goes from the button into the form');
  assert.deepEqual(await axeViolations(page), [], 'the open filters pass axe');
  await screenshot(page, 'phone-filters-open');

  // Two filters: the list, and the button counting them.
  await page.selectOption('#filter-rarity', 'Epic');
  await page.fill('#filter-q', 'a');
  await page.click(`${byTestId('filters')} button[type="submit"]`);
  await page.waitForURL('**/explorer/items?q=a&rarity=Epic');
  await settle(page);
  assert.equal((await page.locator(byTestId('filters-toggle')).textContent()).trim(), 'Filters (2)');
  assert.equal(await page.isHidden('#filter-rarity'), true, 'folded again on the new list');
  await page.click(byTestId('filters-toggle'));
  assert.equal(await page.inputValue('#filter-rarity'), 'Epic');
  await page.click(byTestId('filters-toggle'));
  assert.equal(await page.isHidden('#filter-rarity'), true, 'the button folds it again');

  // On a wide screen there is no button and the form is open.
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.equal(await page.isHidden(byTestId('filters-toggle')), true);
  assert.equal(await page.isVisible('#filter-rarity'), true);
  check();
});

test('on a phone the home page shows the world bosses before the collections', async () => {
  const { page, check } = await openPage(browser, phone);
  await page.goto(`${gateway.url}/explorer`);
  await settle(page);
  const [bosses, tiles] = await Promise.all([byTestId('world-bosses'), byTestId('collections')].map((s) =>
    page.$eval(s, (el) => el.getBoundingClientRect().top)));
  assert.ok(bosses < tiles, `the bosses (at ${bosses}px) come before the collections (at ${tiles}px)`);
  assert.ok(bosses < 740, `the bosses start on the first screen, at ${bosses}px`);
  check();
});
