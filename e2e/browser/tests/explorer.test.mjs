// The explorer at /explorer, as a visitor of a community site uses it:
// search finds an item; its page shows who drops it and which quests reward
// it; a click on a monster opens its loot table; the back button returns;
// a bookmarked URL reloads; each view is one request (a cacheable GET, or
// one event stream for a page whose drop tables come in parts).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { byTestId, launchBrowser, openPage, screenshot, startGateway, viewQuery } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'explorer-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

// In the embedded catalogue, Steel Arrowheads (item 197) drop from the
// Kobold (monster 16) and are a reward of "The Sunken Lighthouse:
// Homecoming" (quest 29).
const item = { id: 197, name: 'Steel Arrowheads' };
const monster = { id: 16, name: 'Kobold' };
const quest = 'The Sunken Lighthouse: Homecoming';

test('search, item page, monster page, back, reload', async () => {
  const { page, check } = await openPage(browser);
  const views = []; // the GraphQL requests, each view's one query
  page.on('request', (req) => {
    if (viewQuery(req)) views.push(viewQuery(req));
  });
  // viewsDuring returns the queries an action sent: it waits for the
  // first answer, then a moment for any other request. (Not "network
  // idle": the change subscription keeps a request open.)
  const viewsDuring = async (action) => {
    const from = views.length;
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/graphql' &&
      viewQuery(r.request()) != null);
    await action();
    await answered;
    await page.waitForTimeout(500);
    return views.slice(from);
  };

  assert.deepEqual(await viewsDuring(() => page.goto(`${gateway.url}/explorer`)), ['Home']);
  await page.waitForSelector(byTestId('search-input'));
  await screenshot(page, 'explorer-home');

  // Search by part of the name: the box suggests as it is filled (one
  // Search of its own), and its button opens the search page.
  await page.fill(byTestId('search-input'), 'arrowhead');
  await page.waitForSelector(`${byTestId('suggestions')} [role="option"]`);
  assert.deepEqual(await viewsDuring(() => page.click(byTestId('search-submit'))), ['Search']);
  assert.equal(new URL(page.url()).pathname, '/explorer/search');
  assert.equal(new URL(page.url()).searchParams.get('q'), 'arrowhead');
  const result = page.locator(`${byTestId('result-items')}[href="/explorer/items/${item.id}"]`);
  await result.waitFor();
  await screenshot(page, 'explorer-search');

  // The item's page: its droppers with chances, its quests, its recipes.
  assert.deepEqual(await viewsDuring(() => result.click()), ['ItemPage']);
  assert.equal(new URL(page.url()).pathname, `/explorer/items/${item.id}`);
  await page.waitForSelector(byTestId('item-page'));
  assert.equal(await page.textContent(byTestId('item-name')), item.name);
  const dropper = page.locator(`${byTestId('dropped-by')} ${byTestId('dropper-link')}`, { hasText: monster.name });
  await dropper.waitFor();
  assert.match(await page.textContent(byTestId('dropped-by')), /\d%/, 'the drop chance is shown');
  assert.match(await page.textContent(byTestId('quests')), new RegExp(quest));
  assert.match(await page.textContent(byTestId('recipes')), /Steel Arrow/);
  assert.match(await page.textContent(byTestId('query-text')), /query ItemPage/, 'the page shows the query it sent');
  await screenshot(page, 'explorer-item');

  // A click on the monster opens its loot table, which links back.
  assert.deepEqual(await viewsDuring(() => dropper.click()), ['MonsterPage']);
  assert.equal(new URL(page.url()).pathname, `/explorer/monsters/${monster.id}`);
  assert.equal(await page.textContent(byTestId('monster-name')), monster.name);
  const loot = page.locator(`${byTestId('loot-table')} ${byTestId('loot-item-link')}`, { hasText: item.name });
  await loot.waitFor();
  assert.equal(await loot.getAttribute('href'), `/explorer/items/${item.id}`);
  await screenshot(page, 'explorer-monster');

  // Back to the item's page, in place.
  await page.goBack();
  await page.waitForURL(`**/explorer/items/${item.id}`);
  await page.waitForSelector(`${byTestId('item-name')}:text-is("${item.name}")`);

  // A bookmarked URL loads as itself.
  await page.goto(`${gateway.url}/explorer/monsters/${monster.id}`);
  await page.waitForSelector(`${byTestId('monster-name')}:text-is("${monster.name}")`);

  check();
});

test('an id that does not exist is a clear "not found"', async () => {
  const { page, check } = await openPage(browser);
  await page.goto(`${gateway.url}/explorer/items/999999`);
  await page.waitForSelector(byTestId('not-found'));
  await screenshot(page, 'explorer-not-found');
  check();
});
