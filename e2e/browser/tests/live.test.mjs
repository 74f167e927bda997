// Live catalogue changes: when the upstream changes a collection and the
// gateway refreshes, an open explorer page says so, without a reload, and
// its Reload button shows the new data.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, screenshot, startGateway, startUpstream } from '../harness.mjs';

let upstream, gateway, browser;

before(async () => {
  upstream = await startUpstream();
  gateway = await startGateway({ upstream, logName: 'live-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly, with a stream open');
  await upstream?.close();
});

test('an open page shows the change notice, and reloads the new data', async () => {
  const { page, check } = await openPage(browser);
  // The change subscription, not the page's own stream (its drop tables
  // arrive with @stream).
  const subscribed = page.waitForRequest((req) => req.method() === 'POST' &&
    new URL(req.url()).pathname === '/graphql' && req.headers().accept?.includes('text/event-stream') &&
    req.postDataJSON()?.operationName === 'CatalogueChanged');
  await page.goto(`${gateway.url}/explorer/items/197`);
  await page.waitForSelector('[data-testid="item-name"]:text-is("Steel Arrowheads")');
  await subscribed;
  assert.equal(await page.isVisible('[data-testid="change-notice"]'), false, 'no notice before a change');

  const navigations = [];
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations.push(f.url()); });
  upstream.change('items', (body) => body.replaceAll('"Steel Arrowheads"', '"Steel Arrowheads (reforged)"'));

  // The gateway reads the upstream every second.
  const notice = page.locator('[data-testid="change-notice"]');
  await notice.waitFor({ state: 'visible', timeout: 15_000 });
  assert.match(await notice.textContent(), /items/);
  assert.deepEqual(navigations, [], 'the page was not reloaded');
  await screenshot(page, 'explorer-change-notice');

  await page.click('[data-testid="change-reload"]');
  await page.waitForSelector('[data-testid="item-name"]:text-is("Steel Arrowheads (reforged)")');
  await notice.waitFor({ state: 'hidden' });
  await screenshot(page, 'explorer-after-reload');
  check();
});
