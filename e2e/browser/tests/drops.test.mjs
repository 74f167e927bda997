// Drop tables as a game wiki's (issue 24, item 3): a monster's loot, an
// item's droppers and a world boss's loot open sorted by chance, highest
// first; a click (or Enter) on any header sorts by that column and marks it
// with aria-sort; a monster's loot shows each item's value and the coins a
// kill yields; boss loot links to the catalogue's item of its name, or
// says it is not in the catalogue; a boss's status is set against its
// times. Each page is one request (a GET, or one event stream when its
// drop table comes in parts: see viewQuery), axe-clean, with no console
// error.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, byTestId, launchBrowser, openPage, screenshot, startGateway, startUpstream, viewQuery } from '../harness.mjs';

let upstream, gateway, browser;

before(async () => {
  upstream = await startUpstream();
  // World boss 2's loot gets a name no item has: the page must say so.
  upstream.change('worldboss', (body) => {
    const envelopes = JSON.parse(body);
    for (const e of envelopes) for (const b of e.world_bosses) if (b.id === 2) b.loot[1].name = 'Relic of Nowhere';
    return JSON.stringify(envelopes, null, 2);
  });
  gateway = await startGateway({ upstream, logName: 'drops-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
  await upstream?.close();
});

// gets counts the GraphQL requests a page's views send (viewQuery).
function countGets(page) {
  const gets = [];
  page.on('request', (req) => {
    if (viewQuery(req)) gets.push(viewQuery(req));
  });
  return gets;
}

// column reads a table's column (by header text) as the cells' text.
const column = (page, table, label) => page.$$eval(`${table} tbody tr`, (rows, label) => {
  const heads = [...rows[0].closest('table').querySelectorAll('thead th')].map((th) => th.querySelector('button').firstChild.textContent.trim());
  const i = heads.indexOf(label);
  return rows.map((r) => r.children[i].textContent.trim());
}, label);
const percent = (cells) => cells.map((c) => Number(c.replace(/%.*/, '').replace(/,/g, '')));
const descending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] >= x);
const ascending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] <= x);
const sortOf = (page, table) => page.$$eval(`${table} thead th`, (ths) => ths.map((th) => th.getAttribute('aria-sort')));

// The Chicken (monster 1) drops Bones (100 %), Chicken Feather and Feather
// (54 %), an Oak Shortbow (3.5 %), ... and a Radiant Bronze Dagger (0.03 %).
test("a monster's loot opens sorted by chance, sorts by any column, and shows value and coins per kill", async () => {
  const { page, check } = await openPage(browser);
  const gets = countGets(page);
  await page.goto(`${gateway.url}/explorer/monsters/1`);
  await page.waitForSelector('main:not([aria-busy]) h1:text-is("Chicken")');
  const table = byTestId('loot-table');
  await page.waitForSelector(table);
  const chances = percent(await column(page, table, 'Chance'));
  assert.equal(chances.length, 7);
  assert.ok(descending(chances), `highest chance first: ${chances}`);
  assert.equal(chances[0], 100);
  assert.deepEqual(await sortOf(page, table), [null, null, 'descending', null, null, null, null, null]);
  assert.equal(await page.textContent(`${table} th[aria-sort] button`), 'Chance ▼');

  // The columns a wiki has: the drop's rarity named as such, the value,
  // the coins per kill (Bones: always, 1 of them, so its value).
  const heads = await page.$$eval(`${table} thead th`, (ths) => ths.map((th) => th.textContent.replace(/[▲▼]/g, '').trim()));
  assert.deepEqual(heads, ['Item', 'Amount', 'Chance', 'With luck', 'Extreme luck', 'Drop rarity', 'Value', 'Coins per kill']);
  const [value] = await column(page, table, 'Value');
  const [coins] = await column(page, table, 'Coins per kill');
  assert.equal(coins, value, 'an always-drop of one item yields its value per kill');
  assert.ok(await page.isVisible(`${table} .drop-rarity-always`), 'the drop rarity is drawn as one');

  // A click on Item sorts by name, A to Z; again, Z to A.
  await page.click(`${table} thead th:nth-child(1) button`);
  let names = await column(page, table, 'Item');
  assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b, 'en')), 'A to Z');
  assert.equal((await sortOf(page, table))[0], 'ascending');
  assert.equal((await sortOf(page, table))[2], null, 'only the sorted column carries aria-sort');
  await page.click(`${table} thead th:nth-child(1) button`);
  assert.equal((await sortOf(page, table))[0], 'descending');

  // The keyboard sorts too: Enter on the focused header's button.
  await page.focus(`${table} thead th:nth-child(8) button`);
  await page.keyboard.press('Enter');
  assert.equal((await sortOf(page, table))[7], 'descending');
  const perKill = (await column(page, table, 'Coins per kill')).map((c) => Number(c.replace(/,/g, '')));
  assert.ok(descending(perKill), `coins per kill, most first: ${perKill}`);
  await page.keyboard.press('Enter');
  assert.equal((await sortOf(page, table))[7], 'ascending');
  assert.ok(ascending((await column(page, table, 'Coins per kill')).map((c) => Number(c.replace(/,/g, '')))));

  assert.deepEqual(gets, ['MonsterPage'], 'one request for the view, none for sorting');
  assert.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'drops-monster');
  check();
});

// Bones (item 729) drop from most monsters, at chances from 100 % down.
test("an item's droppers open sorted by chance, and name the drop's rarity as such", async () => {
  const { page, check } = await openPage(browser);
  const gets = countGets(page);
  await page.goto(`${gateway.url}/explorer/items/729`);
  await page.waitForSelector('main:not([aria-busy]) h1');
  const table = `${byTestId('dropped-by')} table`;
  await page.waitForSelector(table);
  const chances = percent(await column(page, table, 'Chance'));
  assert.ok(chances.length >= 1);
  assert.ok(descending(chances), `highest chance first: ${chances}`);
  assert.ok((await page.$$eval(`${table} thead th`, (ths) => ths.map((th) => th.textContent))).some((t) => t.startsWith('Drop rarity')));
  await page.click(`${table} thead th:nth-child(3) button`);
  assert.equal((await sortOf(page, table))[2], 'ascending');
  assert.ok(ascending(percent(await column(page, table, 'Chance'))));
  assert.deepEqual(gets, ['ItemPage']);
  assert.deepEqual(await axeViolations(page), []);
  check();
});

// Queen Arachnëa (world boss 2) is "defeated"; Gorathul (1) is "active",
// though its battle ended on 22 November 2026.
test("a world boss's loot links to the catalogue's items, sorts by chance, and its status is set against its times", async () => {
  const { page, check } = await openPage(browser);
  const gets = countGets(page);
  await page.goto(`${gateway.url}/explorer/world-bosses/2`);
  await page.waitForSelector('main:not([aria-busy]) h1');
  const table = byTestId('boss-loot');
  await page.waitForSelector(table);
  assert.ok(descending(percent(await column(page, table, 'Chance'))), 'highest chance first');
  assert.equal((await sortOf(page, table))[3], 'descending');
  const silk = page.locator(`${table} ${byTestId('boss-loot-link')}`, { hasText: 'Spider Silk' });
  assert.equal(await silk.getAttribute('href'), '/explorer/items/739', 'loot links to the item page, not to a search');
  assert.match(await page.textContent(`${table} tbody`), /Relic of Nowhere\s*not in the catalogue/);
  assert.equal(await page.locator(`${table} ${byTestId('boss-loot-missing')}`).count(), 1);
  await page.click(`${table} thead th:nth-child(1) button`);
  assert.equal((await sortOf(page, table))[0], 'ascending');
  assert.deepEqual(gets, ['WorldBossPage']);
  assert.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'drops-worldboss');

  await silk.click();
  await page.waitForSelector('main:not([aria-busy]) h1:text-is("Spider Silk")');

  await page.goto(`${gateway.url}/explorer/world-bosses/1`);
  await page.waitForSelector('main:not([aria-busy]) h1');
  const note = await page.textContent(byTestId('boss-status-note'));
  const ended = Date.parse('2026-11-22T12:20:00Z') < Date.now();
  assert.match(note, ended
    ? /^active \(as of the game's last update; ended .+ ago by its end time\)$/
    : /^active \(as of the game's last update; (under way|starts) /);
  check();
});
