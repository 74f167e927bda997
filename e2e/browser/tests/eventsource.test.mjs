// A page subscribes with the browser's own EventSource: a GET stream with
// the subscription in the URL (graphql-sse's distinct connections mode),
// from the gateway's origin and from another one (CORS), and gets
// catalogueChanged when the upstream changes.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, startGateway, startUpstream } from '../harness.mjs';

let upstream, gateway, browser, site, edits = 0;

before(async () => {
  upstream = await startUpstream();
  gateway = await startGateway({ upstream, logName: 'eventsource-gateway' });
  browser = await launchBrowser();
  site = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>another site</title>');
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve()));
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly, with a stream open');
  await upstream?.close();
});

for (const where of ['the same origin', 'another origin']) {
  test(`EventSource from ${where} receives catalogueChanged`, async () => {
    const { page, check } = await openPage(browser);
    await page.goto(where === 'the same origin' ? `${gateway.url}/healthz` : `http://127.0.0.1:${site.address().port}/`);
    const endpoint = `${gateway.url}/graphql`;
    // The page opens the stream and keeps the first event's data.
    await page.evaluate((endpoint) => {
      const query = 'subscription { catalogueChanged { version collections } }';
      window.opened = new Promise((resolve) => {
        const es = new EventSource(`${endpoint}?query=${encodeURIComponent(query)}`);
        es.onopen = () => resolve(true);
        window.received = new Promise((got) => {
          es.addEventListener('next', (ev) => { got(JSON.parse(ev.data)); es.close(); });
        });
      });
    }, endpoint);
    assert.equal(await page.evaluate(() => window.opened), true);
    // A subscription has no acknowledgement: change the upstream until an
    // event comes (the gateway reads it every second), at most 30 s.
    let event;
    for (const deadline = Date.now() + 30_000; !event;) {
      assert.ok(Date.now() < deadline, 'no event within 30 s of changing the upstream');
      edits++;
      upstream.change('items', (body) => body.replace(/"Steel Arrowheads[^"]*"/, `"Steel Arrowheads ${edits}"`));
      event = await page.evaluate(() => Promise.race([window.received, new Promise((r) => setTimeout(() => r(null), 3000))]));
    }
    assert.deepEqual(event.data.catalogueChanged.collections, ['items']);
    assert.match(event.data.catalogueChanged.version, /^[0-9a-f]+$/);
    check();
  });
}
