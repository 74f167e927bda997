// Infoboxes (issue 24, item 2): item, monster and world boss pages carry a
// wiki's infobox of key facts under the record's picture (here, on the
// embedded catalogue, the gateway's placeholder): first
// (after the heading) on a 360 px phone, beside the content at 1280 × 800.
// Facts are shown once (no rarity badge above and again in Stats); a
// quest's chain is not repeated under "Comes after" / "Unlocks"; skill
// rewards read "10,250 Strength XP". Axe-clean, one request, no console error.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, byTestId, launchBrowser, openPage, screenshot, startGateway, viewQuery } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'infobox-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

const phone = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };
const desktop = { viewport: { width: 1280, height: 800 } };

// Steel Arrowheads (item 197) drop from the Kobold (monster 16); world
// boss 2 is Queen Arachnëa.
const pages = [
  { path: '/explorer/items/197', name: 'item' },
  { path: '/explorer/monsters/16', name: 'monster' },
  { path: '/explorer/world-bosses/2', name: 'worldboss' },
];

const box = (page, selector) => page.$eval(selector, (el) => {
  const r = el.getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
});

for (const [size, options] of [['phone', phone], ['desktop', desktop]]) {
  test(`on a ${size} the infobox is ${size === 'phone' ? 'first' : 'beside the content'}: item, monster, world boss`, async () => {
    const { page, check } = await openPage(browser, options);
    for (const { path, name } of pages) {
      const gets = [];
      const onRequest = (req) => {
        if (viewQuery(req)) gets.push(viewQuery(req));
      };
      page.on('request', onRequest);
      await page.goto(`${gateway.url}${path}`);
      await page.waitForSelector('main:not([aria-busy]) h1');
      await page.waitForSelector('.infobox');
      page.off('request', onRequest);
      assert.equal(gets.length, 1, `${path}: one request, got ${gets}`);
      assert.ok(await page.isVisible('.infobox img.infobox-picture[alt^="Picture of"]'), `${path}: the picture`);
      const info = await box(page, '.infobox');
      const first = await box(page, '.page-body > :first-child');
      const heading = await box(page, 'main h1');
      if (size === 'phone') {
        assert.ok(info.top > heading.bottom - 1, `${path}: under the heading`);
        assert.ok(info.bottom <= first.top + 1, `${path}: before the page's content`);
        assert.ok((await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)) <= 0, `${path}: no wider than the screen`);
      } else {
        assert.ok(info.left >= first.right - 1, `${path}: at the side, right of the content`);
        assert.ok(info.top < first.bottom, `${path}: level with the content`);
      }
      assert.deepEqual(await axeViolations(page), [], `${path}: axe`);
      await screenshot(page, `infobox-${size}-${name}`);
    }
    check();
  });
}

test('facts are shown once, the best drop is named, the chain is not repeated, XP reads as XP', async () => {
  const { page, check } = await openPage(browser, desktop);
  await page.goto(`${gateway.url}/explorer/items/197`);
  await page.waitForSelector('.infobox');
  const main = await page.textContent('main');
  assert.equal(await page.$$eval('main .badge.rarity', (els) => els.filter((e) => !e.closest('.infobox') && !e.closest('table')).length), 0, 'no rarity badge outside the infobox and tables');
  assert.equal(await page.$(byTestId('item-stats')) ? (await page.textContent(byTestId('item-stats'))).includes('Rarity') : false, false, 'Stats do not repeat the rarity');
  assert.match(await page.textContent(byTestId('obtained-from')), /^Kobold \(2\.2%\)/, 'obtained from: the best drop, with its chance');
  assert.ok(main.includes('Value'));

  await page.goto(`${gateway.url}/explorer/monsters/1`);
  await page.waitForSelector('.infobox');
  assert.match(await page.textContent(byTestId('best-drop')), /coins per kill/);
  assert.equal((await page.textContent(byTestId('monster-stats'))).includes('Combat level'), false, 'the level is in the infobox only');

  // Quest 5's chain shows quest 3 before it and quest 9 after: no
  // "Comes after" or "Unlocks" says so again.
  await page.goto(`${gateway.url}/explorer/quests/5`);
  await page.waitForSelector(byTestId('quest-chain'));
  assert.equal(await page.$(byTestId('prerequisite')), null);
  assert.equal(await page.$(byTestId('unlocks')), null);
  assert.doesNotMatch(await page.textContent('main'), / × \w+ experience/, 'no "× Strength experience"');

  // Quest 1 rewards 45,500 Mining experience.
  await page.goto(`${gateway.url}/explorer/quests/1`);
  await page.waitForSelector(byTestId('quest-rewards'));
  assert.match(await page.textContent(byTestId('quest-rewards')), /45,500 Mining XP/);
  check();
});
