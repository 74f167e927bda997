// Streams that end: the gateway completes every subscription stream at
// -subscription-max-age, and the explorer subscribes again after a short
// wait, still showing changes; a stream completed at once is not asked
// for again and again.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, screenshot, startGateway, startUpstream } from '../harness.mjs';

let upstream, gateway, browser;

before(async () => {
  upstream = await startUpstream();
  // The shortest age the gateway takes is 1 s; each stream lasts 1.8–2 s.
  gateway = await startGateway({ upstream, logName: 'resubscribe-gateway', args: ['-subscription-max-age', '2s'] });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
  await upstream?.close();
});

// isSubscription: the page's change subscription, not a view's own
// event stream (a record page's drop tables arrive with @stream).
const isSubscription = (req) => req.method() === 'POST' &&
  new URL(req.url()).pathname === '/graphql' && Boolean(req.headers().accept?.includes('text/event-stream')) &&
  req.postDataJSON()?.operationName === 'CatalogueChanged';

// until polls cond every 100 ms until it holds, or fails after ms.
async function until(cond, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('after the gateway completes a stream, the page subscribes again and still hears of changes', async () => {
  const { page, check } = await openPage(browser);
  const streams = [];
  const ended = new Set();
  page.on('request', (req) => { if (isSubscription(req)) streams.push(req); });
  page.on('requestfinished', (req) => { if (isSubscription(req)) ended.add(req); });
  page.on('requestfailed', (req) => { if (isSubscription(req)) ended.add(req); });

  await page.goto(`${gateway.url}/explorer/items/197`);
  await page.waitForSelector('[data-testid="item-name"]:text-is("Steel Arrowheads")');
  await until(() => streams.length >= 2 && ended.has(streams[0]), 20_000,
    'the first stream ended and a second subscription began');

  // A change reaches the page only while a stream is open (nothing is
  // sent on subscribing), and each stream is open for 2 s of every 3–7:
  // change the upstream until one change lands on a stream. Every change
  // comes after the first stream ended.
  const notice = page.locator('[data-testid="change-notice"]');
  const deadline = Date.now() + 40_000;
  for (let n = 1; !(await notice.isVisible()); n++) {
    if (Date.now() > deadline) throw new Error('no change notice within 40 s of changes after the first stream ended');
    upstream.change('items', (body) => body.replaceAll(/"Steel Arrowheads( \(\d+\))?"/g, `"Steel Arrowheads (${n})"`));
    await page.waitForTimeout(1000); // the gateway reads the upstream every second
  }
  assert.match(await notice.textContent(), /items/);
  await screenshot(page, 'explorer-change-after-resubscribe');

  // The gateway ended each stream itself, and the page waited before
  // asking again: at least 1 s by its clock, less slack for where the
  // browser stamps a stream's end.
  for (let i = 1; i < streams.length; i++) {
    assert.ok(ended.has(streams[i - 1]), `subscription ${i + 1} began while the one before was open`);
    assert.equal((await streams[i - 1].response())?.status(), 200, `stream ${i} was answered`);
    const prev = streams[i - 1].timing();
    const gap = streams[i].timing().startTime - (prev.startTime + prev.responseEnd);
    assert.ok(gap >= 500, `subscription ${i + 1} came ${Math.round(gap)} ms after the stream before it ended`);
  }
  check();
});

test('a stream completed as soon as it opens is tried again a few times, backing off, then given up', async () => {
  const { page, check } = await openPage(browser);
  const asked = [];
  // A server that ends every stream at once, as the gateway ends one.
  await page.route((url) => new URL(url).pathname === '/graphql', (route) => {
    if (!isSubscription(route.request())) return route.fallback();
    asked.push(Date.now());
    return route.fulfill({ status: 200, contentType: 'text/event-stream', body: ':\n\nevent: complete\n\n' });
  });
  await page.goto(`${gateway.url}/explorer`);
  // Three tries after the first, 2–4, 4–6 and 8–10 s apart.
  await page.waitForSelector('#live-status[data-status="off"]', { timeout: 40_000 });
  await page.waitForTimeout(1000);
  assert.equal(asked.length, 4, 'the first subscription and three more');
  for (let i = 1; i < asked.length; i++) {
    // At least 2 s by the page's clock; 1 s is slack for this process.
    assert.ok(asked[i] - asked[i - 1] >= 1000, `try ${i + 1} came ${asked[i] - asked[i - 1]} ms after the one before`);
  }
  check();
});
