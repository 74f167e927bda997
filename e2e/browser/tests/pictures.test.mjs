// Pictures (issue 24, item 1): the gateway fetches each record's picture
// from the address the catalogue gives and serves it from its own origin;
// the explorer's infoboxes and boss loot show it. Here the stand-in
// upstream's addresses point at a stand-in image server on 127.0.0.1
// (hence -images-allow-private): items and world bosses answer a real
// 64 × 64 PNG, monsters a 500, so a monster's page shows the gateway's
// 96 × 96 placeholder. On the embedded catalogue (no network) every
// picture is its placeholder. The page never asks another origin for
// anything, sends one GET for its data, is axe-clean and logs no error.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { deflateSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { axeViolations, launchBrowser, openPage, screenshot, startGateway, startUpstream, viewQuery } from '../harness.mjs';

// png is a real PNG of size × size pixels, an RGB gradient.
function png(size) {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bits per sample
  ihdr[9] = 2; // RGB
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3); // filter byte 0, then the pixels
    for (let x = 0; x < size; x++) row.set([x * 4, y * 4, 160], 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

const picture = png(64);
const asked = [];
let images, upstream, gateway, offline, browser;

before(async () => {
  images = createServer((req, res) => {
    asked.push(req.url);
    if (req.url.startsWith('/monsters/')) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('broken');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': picture.length }).end(picture);
  });
  await new Promise((resolve) => images.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${images.address().port}/`;
  upstream = await startUpstream();
  for (const name of ['items', 'monsters', 'worldboss']) {
    upstream.change(name, (body) => body.replaceAll('https://cdn.idlerealms.example/', base));
  }
  gateway = await startGateway({ upstream, logName: 'pictures-gateway', args: ['-images-allow-private'] });
  offline = await startGateway({ logName: 'pictures-offline-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
  assert.equal(await offline?.stop(), 0, 'the offline gateway exits cleanly');
  await upstream?.close();
  await new Promise((resolve) => { images?.closeAllConnections(); images ? images.close(resolve) : resolve(); });
});

// visit opens path and waits for every picture on it to be loaded (or to
// have failed), recording the data GETs and the pictures' answers.
async function visit(page, url) {
  const gets = [];
  const pictures = [];
  const onRequest = (req) => {
    if (viewQuery(req)) gets.push(viewQuery(req));
  };
  const onResponse = (res) => {
    const u = new URL(res.url());
    if (u.pathname.startsWith('/images/')) pictures.push({ path: u.pathname + u.search, status: res.status(), type: res.headers()['content-type'] });
  };
  page.on('request', onRequest);
  page.on('response', onResponse);
  await page.goto(url);
  await page.waitForSelector('main:not([aria-busy]) h1');
  await page.waitForSelector('.infobox img');
  await page.waitForFunction(() => [...document.querySelectorAll('main img')].every((i) => i.complete));
  page.off('request', onRequest);
  page.off('response', onResponse);
  return { gets, pictures };
}

// sizes are the natural widths of the pictures matching selector.
const sizes = (page, selector) => page.$$eval(selector, (els) => els.map((i) => i.naturalWidth));

test("an item's infobox shows its picture, fetched by the gateway from the catalogue's address", async () => {
  const { page, check } = await openPage(browser);
  const { gets, pictures } = await visit(page, `${gateway.url}/explorer/items/197`);
  assert.deepEqual(gets, ['ItemPage'], 'one GET for the data');
  const img = page.locator('.infobox img.infobox-picture');
  assert.match(await img.getAttribute('src'), /^\/images\/items\/197\?v=[0-9a-f]{16}$/, 'a same-origin, versioned address');
  assert.equal(await img.getAttribute('alt'), 'Picture of Steel Arrowheads');
  assert.equal(await img.getAttribute('loading'), 'lazy');
  assert.deepEqual([await img.getAttribute('width'), await img.getAttribute('height')], ['96', '96'], 'its box reserved');
  assert.deepEqual(await sizes(page, '.infobox img'), [64], 'the real picture (the placeholder is 96 wide)');
  assert.deepEqual(pictures.map((p) => [p.status, p.type]), [[200, 'image/png']]);
  assert.ok(asked.includes('/items/steel-arrowheads.png'), `the image server was asked for it: ${asked}`);
  assert.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'pictures-item');
  check();
});

test("a world boss's picture and its loot's", async () => {
  const { page, check } = await openPage(browser);
  const { gets } = await visit(page, `${gateway.url}/explorer/world-bosses/2`);
  assert.deepEqual(gets, ['WorldBossPage']);
  assert.deepEqual(await sizes(page, '.infobox img'), [64]);
  const loot = await sizes(page, '[data-testid="boss-loot-picture"]');
  assert.ok(loot.length > 0, 'the loot has pictures');
  assert.deepEqual(loot, loot.map(() => 64), 'every loot picture loaded');
  assert.deepEqual(await page.$$eval('[data-testid="boss-loot-picture"]', (els) => [...new Set(els.map((e) => e.getAttribute('alt')))]),
    [''], 'loot pictures are decorative: the name is beside them');
  assert.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'pictures-worldboss');
  check();
});

test("a picture the catalogue's address cannot give is the gateway's placeholder", async () => {
  const { page, check } = await openPage(browser);
  const { pictures } = await visit(page, `${gateway.url}/explorer/monsters/16`);
  assert.deepEqual(await sizes(page, '.infobox img'), [96], 'the placeholder');
  assert.deepEqual(pictures.map((p) => [p.status, p.type]), [[200, 'image/svg+xml']]);
  assert.ok(asked.some((u) => u.startsWith('/monsters/')), 'the gateway tried the address');
  assert.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'pictures-monster-placeholder');
  check();
});

test('offline, on the embedded catalogue, every picture is its placeholder and nothing leaves 127.0.0.1', async () => {
  const { page, check } = await openPage(browser);
  const before = asked.length;
  for (const path of ['/explorer/items/197', '/explorer/world-bosses/2']) {
    const { pictures } = await visit(page, `${offline.url}${path}`);
    assert.ok(pictures.length > 0 && pictures.every((p) => p.status === 200 && p.type === 'image/svg+xml'), `${path}: placeholders: ${JSON.stringify(pictures)}`);
    assert.ok((await sizes(page, 'main img')).every((w) => w === 96), `${path}: every placeholder drawn`);
  }
  assert.equal(asked.length, before, 'the offline gateway fetched nothing');
  await screenshot(page, 'pictures-offline');
  check();
});
