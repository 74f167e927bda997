// World bosses live: a boss's page shows its battle in the viewer's time
// zone, and when the upstream changes the boss (the gateway reads it every
// second), the open page shows the new status by itself: no reload, no
// click, no notice to act on.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, launchBrowser, openPage, screenshot, startGateway, startUpstream } from '../harness.mjs';

let upstream, gateway, browser;

before(async () => {
  upstream = await startUpstream();
  gateway = await startGateway({ upstream, logName: 'worldboss-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly, with a stream open');
  await upstream?.close();
});

// In the embedded catalogue, Frostmaw (world boss 3) is upcoming, its
// battle at 06:00 UTC on 23 November 2026: 3 PM in Tokyo. The page's
// clock is set to the day before (the explorer's window.explorerNow), as
// its badge is the battle by its times.
test('a world boss page shows local battle times and takes a status change live', async () => {
  const { page, context, check } = await openPage(browser, { timezoneId: 'Asia/Tokyo' });
  await context.addInitScript(() => { window.explorerNow = '2026-11-22T12:00:00Z'; });
  const subscribed = page.waitForRequest((req) => req.method() === 'POST' &&
    new URL(req.url()).pathname === '/graphql' && req.headers().accept?.includes('text/event-stream'));
  await page.goto(`${gateway.url}/explorer/world-bosses/3`);
  await page.waitForSelector('main:not([aria-busy]) h1:text-is("Frostmaw")');
  await subscribed;
  const status = page.locator('main [data-testid="boss-status"]');
  assert.equal(await status.textContent(), 'upcoming');
  assert.match(await page.textContent('[data-testid="battle"]'), /Mon, Nov 23, 3:00 PM GMT\+9/, 'the battle in the viewer\'s time zone');
  assert.deepEqual(await axeViolations(page), []);
  await screenshot(page, 'worldboss-before');

  const navigations = [];
  page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations.push(f.url()); });
  upstream.change('worldboss', (body) => {
    const envelopes = JSON.parse(body);
    for (const e of envelopes) {
      for (const b of e.world_bosses) if (b.id === 3) Object.assign(b, { status: 'active', battle_starts_at: '2026-11-22T11:30:00.000Z' });
    }
    return JSON.stringify(envelopes, null, 2);
  });

  await page.waitForSelector('main [data-testid="boss-status"]:text-is("active")', { timeout: 15_000 });
  assert.deepEqual(navigations, [], 'the page was not reloaded');
  assert.equal(await page.isVisible('[data-testid="change-notice"]'), false, 'nothing to click');
  assert.equal(await page.textContent('#announce'), 'The world bosses were updated.');
  await screenshot(page, 'worldboss-after');
  check();
});
