// Live views: an open list and a world boss's page are one live query each
// (@live, one event stream), and when the upstream changes what they show
// (the gateway reads it every second), they show it by themselves: no
// reload, no notice to act on, and no other GraphQL request. At a laptop's
// 1366 × 900 and a phone's 360 × 740.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, screenshot, startGateway, startUpstream } from '../harness.mjs';

let upstream, gateway, browser, edits = 0;

before(async () => {
  upstream = await startUpstream();
  gateway = await startGateway({ upstream, logName: 'liveviews-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly, with streams open');
  await upstream?.close();
});

// watchRequests records the page's GraphQL requests but the change
// subscription: each as its method and operation name, a live query's
// marked.
function watchRequests(page) {
  const sent = [];
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.pathname !== '/graphql') return;
    if (req.method() === 'GET') {
      sent.push(`GET ${u.searchParams.get('operationName')}`);
      return;
    }
    const body = req.postDataJSON();
    if (body?.operationName === 'CatalogueChanged') return;
    sent.push(`POST ${body?.operationName}${/@live\b/.test(body?.query ?? '') ? ' @live' : ''}`);
  });
  return sent;
}

// Chicken Feather is item 786 of the embedded catalogue; its list,
// filtered by name, shows it.
let featherName = 'Chicken Feather';

function renameFeather() {
  edits++;
  const renamed = `Chicken Plume ${edits}`;
  upstream.change('items', (body) => body.replace(/(chicken-feather\.png","name":")[^"]*"/, `$1${renamed}"`));
  featherName = renamed;
  return renamed;
}

// Frostmaw is world boss 3. Its badge follows the browser's clock, not
// the data, so the change the page must take live is to its name.
let bossName = 'Frostmaw';

function renameBoss() {
  edits++;
  const renamed = `Frostmaw ${edits}`;
  upstream.change('worldboss', (body) => {
    const envelopes = JSON.parse(body);
    for (const e of envelopes) for (const b of e.world_bosses) if (b.id === 3) b.name = renamed;
    return JSON.stringify(envelopes, null, 2);
  });
  bossName = renamed;
  return renamed;
}

for (const [name, viewport] of [['laptop', { width: 1366, height: 900 }], ['phone', { width: 360, height: 740 }]]) {
  test(`${name}: an open list takes a change live, in its one request`, async () => {
    const { page, check } = await openPage(browser, { viewport });
    const sent = watchRequests(page);
    await page.goto(`${gateway.url}/explorer/items?q=chicken`);
    const row = page.locator('[data-testid="list-table"] [data-testid="list-link"][href="/explorer/items/786"]');
    await row.waitFor();
    assert.equal(await row.textContent(), featherName);
    assert.deepEqual(sent, ['POST ItemList @live'], 'the list is one live query');
    assert.match(await page.textContent('#how-request'), /live query/);

    const navigations = [];
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations.push(f.url()); });
    const renamed = renameFeather();
    await page.waitForSelector(`[data-testid="list-link"][href="/explorer/items/786"]:text-is("${renamed}")`, { timeout: 15_000 });
    assert.deepEqual(navigations, [], 'the page was not reloaded');
    assert.equal(await page.isVisible('[data-testid="change-notice"]'), false, 'nothing to click');
    assert.equal(await page.textContent('#announce'), 'This page was updated.');
    assert.deepEqual(sent, ['POST ItemList @live'], 'no other request: the change came on the stream');
    assert.match(await page.textContent('#how-response'), /1 update so far/);
    await screenshot(page, `liveviews-list-${name}`);
    check();
    await page.context().close();
  });

  test(`${name}: a world boss's page takes a change live, in its one request`, async () => {
    const { page, check } = await openPage(browser, { viewport });
    const sent = watchRequests(page);
    await page.goto(`${gateway.url}/explorer/world-bosses/3`);
    await page.waitForSelector(`main:not([aria-busy]) h1:text-is("${bossName}")`);
    assert.deepEqual(sent, ['POST WorldBossPage @live'], 'the page is one live query');

    const navigations = [];
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations.push(f.url()); });
    const renamed = renameBoss();
    await page.waitForSelector(`main h1:text-is("${renamed}")`, { timeout: 15_000 });
    assert.deepEqual(navigations, [], 'the page was not reloaded');
    assert.equal(await page.isVisible('[data-testid="change-notice"]'), false, 'nothing to click');
    assert.equal(await page.textContent('#announce'), 'The world bosses were updated.');
    assert.deepEqual(sent, ['POST WorldBossPage @live'], 'no other request: the change came on the stream');
    await screenshot(page, `liveviews-boss-${name}`);
    check();
    await page.context().close();
  });
}
