// The explorer's rough edges of issue 36 (item 4, its interface part),
// at a laptop's 1366 × 900 and a phone's 360 × 740:
//
// - search: "drgon" offers the word ("Did you mean dragon?", a search
//   for it), a search pages on past 50 and keeps to one kind, a result's
//   number never touches its name (from "10." on), and Escape pressed
//   before the suggestions come only closes them: the text stays and
//   Search sends it;
// - a drop table's columns a phone hides (Amount, the luck columns, Drop
//   rarity) are shown by a "Show all columns" toggle;
// - a record page has breadcrumbs, Explorer › Monsters › its name, links;
// - the theme: the system's by default, a choice in the footer remembered
//   across a reload, and the placeholder picture dark in the dark (the
//   gateway's SVG follows the page's color-scheme).
//
// Every view here is one GraphQL GET, passes axe, logs no error, and asks
// nothing of another host.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, byTestId, launchBrowser, openPage, screens, screenshot, startGateway, viewQuery } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'rough-edges-ui-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

// view runs act (a goto or a click) and waits for the view it brings,
// counting the GraphQL requests sent meanwhile: each view sends one, a
// GET or a live view's stream (see viewQuery).
async function view(page, act, what) {
  const gets = [];
  const onRequest = (req) => {
    const operation = viewQuery(req);
    if (operation !== null && operation !== 'CatalogueChanged') gets.push(operation);
  };
  page.on('request', onRequest);
  await Promise.all([page.waitForResponse((r) => viewQuery(r.request()) !== null), act()]);
  await page.waitForSelector('main:not([aria-busy]) h1');
  page.off('request', onRequest);
  assert.equal(gets.length, 1, `${what}: one request, got ${gets}`);
}

const go = (page, path) => view(page, () => page.goto(`${gateway.url}${path}`), path);

// resultNames are the search page's results, in order.
const resultNames = (page) => page.$$eval(`${byTestId('search-results')} li > a`, (as) => as.map((a) => a.textContent));

for (const [screen, options] of Object.entries(screens)) {
  test(`${screen}: "drgon" suggests the word dragon, a search pages and keeps to a kind, numbers clear of names`, async (t) => {
    const { page, check, context } = await openPage(browser, options);
    t.after(() => context.close());
    await go(page, '/explorer/search?q=drgon');
    // Words, best first, each a search: never a record's name.
    assert.match((await page.textContent(byTestId('did-you-mean'))).trim(), /^Did you mean dragon(, | or |\?)/);
    assert.ok(!(await page.textContent(byTestId('did-you-mean'))).includes('Red Dragon'));
    const href = await page.getAttribute(`${byTestId('did-you-mean')} a`, 'href');
    assert.equal(href, '/explorer/search?q=dragon');
    assert.deepEqual(await axeViolations(page), [], 'did you mean: axe');
    await view(page, () => page.click(`${byTestId('did-you-mean')} a >> nth=0`), 'the suggested word');
    assert.equal(await page.inputValue(byTestId('search-input')), 'dragon');
    assert.ok((await resultNames(page)).some((n) => /dragon/i.test(n)), 'dragon finds dragons');

    // A long answer: 50 shown, then the next page, numbered on from 51.
    await go(page, '/explorer/search?q=ro');
    const first = await resultNames(page);
    assert.equal(first.length, 50);
    // From "10." on, the number stays clear of the name.
    const gaps = await page.$$eval(`${byTestId('search-results')} li`, (lis) => lis.map((li) => {
      const before = getComputedStyle(li, '::before');
      const left = li.getBoundingClientRect().left + parseFloat(getComputedStyle(li).paddingLeft);
      return li.querySelector('a').getClientRects()[0].left - (left + parseFloat(before.width)); // its first line
    }));
    assert.ok(gaps.every((g) => g >= 4), `gaps between number and name: ${gaps.map(Math.round)}`);
    await screenshot(page, `rough-edges-${screen}-search`);
    await view(page, () => page.click(byTestId('search-next')), 'the next page');
    assert.match(page.url(), /[?&]after=/);
    const second = await resultNames(page);
    assert.ok(second.length > 0 && second.length <= 50, `${second.length} on page 2`);
    assert.ok(!second.some((n, i) => first.includes(n) && first.indexOf(n) === i), 'page 2 goes on from page 1');
    assert.equal(await page.$eval(`${byTestId('search-results')} ol`, (ol) => getComputedStyle(ol).counterReset), 'rank 50');
    assert.match(await page.textContent('main .lede'), /Results 51 to/);
    assert.deepEqual(await axeViolations(page), [], 'page 2: axe');
    await view(page, () => page.click(byTestId('search-first')), 'back to the first page');
    assert.deepEqual(await resultNames(page), first);

    // One kind: every result an item, the choice marked.
    await view(page, () => page.click(byTestId('search-kind-mining')), 'one kind');
    assert.match(page.url(), /kind=mining/);
    const kinds = await page.$$eval(byTestId('result-kind'), (ks) => ks.map((k) => k.textContent));
    assert.ok(kinds.length > 0 && kinds.every((k) => k === 'mining rock'), `kinds: ${kinds}`);
    assert.equal(await page.getAttribute(byTestId('search-kind-mining'), 'aria-current'), 'page');
    assert.deepEqual(await axeViolations(page), [], 'one kind: axe');
    check();
  });

  test(`${screen}: Escape before the suggestions only closes them, and Search still searches`, async (t) => {
    const { page, check, context } = await openPage(browser, options);
    t.after(() => context.close());
    await go(page, '/explorer');
    const input = page.locator(byTestId('search-input'));
    await input.focus();
    await page.keyboard.type('drgon');
    await page.keyboard.press('Escape'); // within the suggestions' pause
    assert.equal(await input.inputValue(), 'drgon', 'Escape keeps the text');
    await page.waitForTimeout(600); // past the pause: nothing comes
    assert.equal(await page.locator(byTestId('suggestions')).isHidden(), true, 'no suggestions after Escape');
    await page.keyboard.press('Escape');
    assert.equal(await input.inputValue(), 'drgon', 'a second Escape keeps it too');
    await view(page, () => page.click(byTestId('search-submit')), 'Search');
    assert.match(page.url(), /\/explorer\/search\?q=drgon$/);
    check();
  });

  test(`${screen}: a drop table shows every column, on a phone behind a toggle`, async (t) => {
    const { page, check, context } = await openPage(browser, options);
    t.after(() => context.close());
    await go(page, '/explorer/monsters/42');
    const shown = () => page.$$eval(`${byTestId('loot-table')} thead th`, (ths) => ths.filter((th) => th.offsetParent !== null).map((th) => th.textContent.replace(/[▲▼]/g, '').trim()));
    const extra = ['Amount', 'With luck', 'Extreme luck', 'Drop rarity'];
    const toggle = page.locator(`${byTestId('columns-toggle')}`).first();
    if (screen === 'phone') {
      const before = await shown();
      assert.ok(extra.every((c) => !before.includes(c)), `hidden at first: ${before}`);
      assert.equal(await toggle.isVisible(), true);
      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
      const after = await shown();
      assert.ok(extra.every((c) => after.includes(c)), `shown: ${after}`);
      // The page stays the screen's width: the table scrolls in its box.
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'no page scroll');
      await screenshot(page, 'rough-edges-phone-all-columns');
      await toggle.click();
      const again = await shown();
      assert.ok(extra.every((c) => !again.includes(c)), `hidden again: ${again}`);
    } else {
      assert.equal(await toggle.isVisible(), false, 'no toggle where every column shows');
      const all = await shown();
      assert.ok(extra.every((c) => all.includes(c)), `shown: ${all}`);
    }
    assert.deepEqual(await axeViolations(page), [], 'axe');
    check();
  });

  test(`${screen}: record pages have breadcrumbs, every one a link`, async (t) => {
    const { page, check, context } = await openPage(browser, options);
    t.after(() => context.close());
    for (const [path, list] of [['/explorer/monsters/42', ['/explorer/monsters', 'Monsters']], ['/explorer/quests/5', ['/explorer/quests', 'Quests']], ['/explorer/items/1', ['/explorer/items', 'Items']]]) {
      await go(page, path);
      const name = (await page.textContent('main h1')).trim();
      const crumbs = await page.$$eval(`${byTestId('breadcrumbs')} a`, (as) => as.map((a) => [a.getAttribute('href'), a.textContent, a.getAttribute('aria-current')]));
      assert.deepEqual(crumbs, [['/explorer', 'Explorer', null], [...list, null], [path, name, 'page']], path);
      assert.equal(await page.getAttribute(byTestId('breadcrumbs'), 'aria-label'), 'Breadcrumb');
      assert.deepEqual(await axeViolations(page), [], `${path}: axe`);
    }
    await view(page, () => page.click(`${byTestId('breadcrumbs')} a[href="/explorer/items"]`), 'the collection crumb');
    assert.match(page.url(), /\/explorer\/items$/);
    check();
  });

  test(`${screen}: the theme is the system's, or the one chosen, remembered; the placeholder follows it`, async (t) => {
    const { page, check, context } = await openPage(browser, { ...options, colorScheme: 'light' });
    t.after(() => context.close());
    const state = () => page.evaluate(() => ({
      theme: document.documentElement.dataset.theme ?? null,
      bg: getComputedStyle(document.body).backgroundColor,
      // The placeholder's tile, as the page draws it (an item's: outside
      // its gem), light or dark.
      tile: (() => {
        const c = document.createElement('canvas');
        c.width = c.height = 96;
        const x = c.getContext('2d');
        x.drawImage(document.querySelector('[data-testid="infobox-picture"]'), 0, 0, 96, 96);
        return x.getImageData(8, 48, 1, 1).data[0] < 100 ? 'dark' : 'light';
      })(),
      stored: localStorage.getItem('explorer-theme'),
    }));
    await go(page, '/explorer/items/1');
    await page.waitForFunction(() => document.querySelector('[data-testid="infobox-picture"]').complete);
    assert.match(await page.getAttribute(byTestId('infobox-picture'), 'src'), /^\/images\/items\/1\b/, 'the embedded catalogue: a placeholder');
    assert.deepEqual(await state(), { theme: null, bg: 'rgb(246, 247, 249)', tile: 'light', stored: null });
    await page.selectOption(byTestId('theme-select'), 'dark');
    let s = await state();
    assert.equal(s.theme, 'dark');
    assert.equal(s.bg, 'rgb(20, 23, 29)');
    assert.equal(s.tile, 'dark');
    assert.equal(s.stored, 'dark');
    assert.deepEqual(await axeViolations(page), [], 'dark: axe');
    await screenshot(page, `rough-edges-${screen}-dark`);
    await go(page, '/explorer/items/1');
    await page.waitForFunction(() => document.querySelector('[data-testid="infobox-picture"]').complete);
    s = await state();
    assert.equal(s.theme, 'dark', 'remembered across a reload');
    assert.equal(s.tile, 'dark');
    assert.equal(await page.inputValue(byTestId('theme-select')), 'dark');
    await page.selectOption(byTestId('theme-select'), 'system');
    assert.deepEqual(await state(), { theme: null, bg: 'rgb(246, 247, 249)', tile: 'light', stored: null });

    // A dark system with no choice: dark, the placeholder too; "Light"
    // beats it.
    await page.emulateMedia({ colorScheme: 'dark' });
    s = await state();
    assert.equal(s.bg, 'rgb(20, 23, 29)');
    assert.equal(s.tile, 'dark');
    await page.selectOption(byTestId('theme-select'), 'light');
    s = await state();
    assert.equal(s.bg, 'rgb(246, 247, 249)');
    assert.equal(s.tile, 'light');
    check();
  });
}
