// The explorer's rough edges in what its pages show (issue 36, item 4),
// on the embedded catalogue, at a laptop's 1366 × 900 and a phone's
// 360 × 740:
//
// 1. an item a world boss drops names the boss: Kraken Ink (item 772) is
//    the Kraken of the Abyss's loot at 100 %, in "Dropped by" and in its
//    infobox (Item.droppedByWorldBosses);
// 2. a world boss's badge on the home page, its list and its page is its
//    battle by its times against the browser's clock (injected here as
//    window.explorerNow), not the game's word of days ago;
// 3. an event chest's contents sort, highest chance first, under an
//    infobox;
// 4. an item found only in chests (item 1089) lists each chest once, reads
//    its limited flag as words, says where it is obtained from, and shows
//    no empty box;
// 5. a monster's treasure scroll labels read as words, an item's uses list
//    each recipe once, and cooking ingredients show their quantity.
//
// Every page here is one request, passes axe, logs no error, and asks nothing
// of another host.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, byTestId, launchBrowser, openPage, screens, screenshot, startGateway, viewQuery } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'rough-edges-data-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

// openAt opens a page on a screen, its clock set to now (an ISO time) when
// given, as the explorer's README says a test may: window.explorerNow,
// set before the explorer loads. The page's context closes when the test
// ends, and with it the page's event stream: the gateway holds 10 streams
// per client at most.
async function openAt(t, screen, now) {
  const opened = await openPage(browser, screens[screen]);
  t.after(() => opened.context.close());
  if (now) await opened.context.addInitScript((at) => { window.explorerNow = at; }, now);
  return opened;
}

// visit goes to path and waits for its view: one GraphQL request (a GET,
// or a live view's or a streamed drop table's one stream: see viewQuery), no page wider than the
// screen, no serious axe violation.
async function visit(page, path, name) {
  const gets = [];
  const onRequest = (req) => {
    const operation = viewQuery(req);
    if (operation !== null) gets.push(operation);
  };
  page.on('request', onRequest);
  await page.goto(`${gateway.url}${path}`);
  await page.waitForSelector('main:not([aria-busy]) h1');
  page.off('request', onRequest);
  assert.equal(gets.length, 1, `${path}: one request, got ${gets}`);
  const wider = await page.evaluate(() =>
    document.documentElement.scrollWidth - Math.min(window.innerWidth, document.documentElement.clientWidth));
  assert.ok(wider <= 0, `${path} is ${wider}px wider than the window`);
  assert.deepEqual(await axeViolations(page), [], `${path}: axe`);
  await screenshot(page, name);
}

const text = (page, selector) => page.locator(selector).innerText();

for (const screen of Object.keys(screens)) {
  test(`${screen}: Kraken Ink names the world boss that drops it, in its table and its infobox`, async (t) => {
    const { page, check } = await openAt(t, screen);
    await visit(page, '/explorer/items/772', `data-kraken-ink-${screen}`);
    const dropped = byTestId('dropped-by');
    assert.match(await text(page, `${dropped} h2`), /^Dropped by 3 monsters and 1 world boss$/);
    const boss = page.locator(`${dropped} ${byTestId('boss-dropper-link')}`);
    assert.equal(await boss.innerText(), 'Kraken of the Abyss');
    assert.equal(await boss.getAttribute('href'), '/explorer/world-bosses/5');
    // Sorted by chance, highest first: the boss's 100 % leads.
    assert.match(await text(page, `${dropped} tbody tr:first-child`), /Kraken of the Abyss[\s\S]*100%/);
    assert.equal(await page.locator(`${dropped} tbody tr`).count(), 4);
    const obtained = await text(page, byTestId('obtained-from'));
    assert.match(obtained, /^Kraken of the Abyss \(100%\)\s*world boss$/, 'the infobox names the boss, not Young Kraken');
    assert.equal(await page.locator(`${byTestId('obtained-from')} a`).getAttribute('href'), '/explorer/world-bosses/5');
    check();
  });

  test(`${screen}: a world boss's badge is its battle by the browser's clock, not the game's old word`, async (t) => {
    // Six days after Gorathul's battle ended (22 November 2026, 12:20 UTC),
    // though the game's last word was "active".
    {
      const { page, check } = await openAt(t, screen, '2026-11-28T12:00:00Z');
      await visit(page, '/explorer/world-bosses/1', `data-boss-ended-${screen}`);
      assert.equal(await text(page, `.page-header ${byTestId('boss-status')}`), 'ended');
      assert.equal(await text(page, `.page-header ${byTestId('game-status')}`), 'the game says active');
      assert.match(await text(page, byTestId('boss-status-note')), /^active \(as of the game's last update; ended 6 days ago by its end time\)$/);

      await visit(page, '/explorer', `data-home-bosses-${screen}`);
      const row = page.locator(`${byTestId('home-bosses')} tbody tr`, { hasText: 'Gorathul' });
      assert.equal(await row.locator(byTestId('boss-status')).innerText(), 'ended');
      assert.equal(await page.locator(`${byTestId('home-bosses')} .status-active`).count(), 0, 'no battle is under way on the 28th');

      await visit(page, '/explorer/world-bosses', `data-boss-list-${screen}`);
      const listed = page.locator(`${byTestId('list-table')} tbody tr`, { hasText: 'Gorathul' });
      assert.equal(await listed.locator(byTestId('boss-status')).innerText(), 'ended');
      check();
    }
    // During its battle, the same boss is active, and Frostmaw (the next
    // morning) upcoming, with nothing for the game to contradict.
    {
      const { page, check } = await openAt(t, screen, '2026-11-22T12:00:00Z');
      await visit(page, '/explorer', `data-home-bosses-during-${screen}`);
      const status = (name) => page.locator(`${byTestId('home-bosses')} tbody tr`, { hasText: name }).locator(byTestId('boss-status')).innerText();
      assert.equal(await status('Gorathul'), 'active');
      assert.equal(await status('Frostmaw'), 'upcoming');
      assert.equal(await status('Kraken of the Abyss'), 'ended');
      assert.equal(await page.locator(`${byTestId('home-bosses')} ${byTestId('game-status')}`).count(), 0);
      check();
    }
  });

  test(`${screen}: an event chest's contents sort, highest chance first, under an infobox`, async (t) => {
    const { page, check } = await openAt(t, screen);
    await visit(page, '/explorer/event-chests/1', `data-chest-${screen}`);
    const table = byTestId('chest-contents');
    const chances = async () => (await page.locator(`${table} tbody tr td:last-child .chance`).allInnerTexts()).map((t) => parseFloat(t));
    const first = await chances();
    assert.equal(first.length, 7);
    assert.deepEqual(first, [...first].sort((a, b) => b - a), 'highest chance first');
    assert.equal(await page.locator(`${table} thead th:nth-child(3)`).getAttribute('aria-sort'), 'descending');
    await page.click(`${table} thead th:nth-child(3) button`);
    assert.deepEqual(await chances(), [...first].reverse(), 'a click sorts lowest first');
    await page.click(`${table} thead th:nth-child(1) button`);
    const names = await page.locator(`${table} tbody th`).allInnerTexts();
    assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b, 'en')), 'by name');
    const box = await text(page, byTestId('infobox'));
    assert.match(box, /Contents\s*7 items/);
    assert.match(box, /Likeliest\s*Apple Pie[\s\S]*\(43%\)/);
    assert.match(box, /Rarest\s*Pumpkin Head Mask[\s\S]*\(0\.8%\)/);
    check();
  });

  test(`${screen}: an item only in chests lists each once, its limited flag in words, where it is obtained, no empty box`, async (t) => {
    const { page, check } = await openAt(t, screen);
    await visit(page, '/explorer/items/1089', `data-chest-item-${screen}`);
    const sources = page.locator(`${byTestId('other-sources')} li`);
    const listed = (await sources.allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim());
    assert.deepEqual(listed, ['EVENT CHEST Halloween Chest ×1 0.8%', 'EVENT CHEST Snowball Sack ×1 2.4%'], 'each chest once');
    assert.equal(await text(page, `${byTestId('other-sources')} h2`), 'Obtained from');
    assert.equal(await page.locator(byTestId('dropped-by')).count(), 0, 'no empty "Dropped by"');
    assert.equal(await page.locator('main .empty').count(), 0, 'no box says it has nothing');
    const body = await text(page, 'main');
    assert.doesNotMatch(body, /LIMITED\s*1/i);
    assert.match(await text(page, byTestId('infobox')), /Limited edition\s*Yes/);
    assert.match(await text(page, byTestId('obtained-from')), /^Snowball Sack \(2\.4%\)\s*event chest$/);
    check();
  });

  test(`${screen}: readable monster labels, each recipe once, cooking quantities`, async (t) => {
    const { page, check } = await openAt(t, screen);
    await visit(page, '/explorer/monsters/1', `data-monster-labels-${screen}`);
    const labels = await page.locator(`${byTestId('monster-stats')} dt`).evaluateAll((dts) => dts.map((dt) => dt.textContent));
    assert.ok(labels.includes('Treasure scroll with max wishing well'), labels.join(' | '));
    assert.ok(labels.includes('Treasure scroll with max wishing well and base camp 72'), labels.join(' | '));
    assert.ok(labels.every((l) => !l.startsWith('…')), 'no label leans on the one before');

    // Steel Arrowheads go into the Steel Arrow and Steel Javelin fletching
    // recipes, whose products ingredientOf named again.
    await visit(page, '/explorer/items/197', `data-used-in-${screen}`);
    const uses = await page.locator(`${byTestId('recipes')} li`).allInnerTexts();
    assert.equal(uses.length, 2, uses.join(' | '));
    assert.equal(uses.filter((u) => /Steel Arrow\b/.test(u)).length, 1, 'Steel Arrow once');
    assert.equal(uses.filter((u) => /Steel Javelin/.test(u)).length, 1, 'Steel Javelin once');
    assert.equal(await text(page, `${byTestId('recipes')} h2`), 'Used in 2 recipes');

    await visit(page, '/explorer/cooking/1', `data-cooking-${screen}`);
    const ingredients = await page.locator(`${byTestId('materials-list')} li`).allInnerTexts();
    assert.equal(ingredients.length, 1);
    assert.match(ingredients[0], /^1 × Raw Shrimp\b/);
    await visit(page, '/explorer/items/518', `data-cooked-item-${screen}`);
    assert.match(await text(page, byTestId('made-from')), /1 × Raw Shrimp/);
    check();
  });
}
