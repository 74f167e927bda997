// Drop tables in parts (issue 36, item 3): a record page asks for its drop
// tables with @stream(initialCount: 10), as one event stream (a POST with
// Accept: text/event-stream), shows the first rows at once and the rest as
// they arrive, every row in the end, sorted as the table says. Bones (item
// 729) are dropped by 62 monsters: its "Dropped by" comes in two parts.
// At a desktop's 1366 × 900 and a phone's 360 × 740; one request per
// view, axe-clean, no console error.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, launchBrowser, openPage, screenshot, startGateway, viewQuery } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'streamed-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

// How many monsters drop an item, and their chances, as the gateway answers
// them whole (JSON, no directive).
async function droppers(id) {
  const res = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query: 'query($id: Int!) { item(id: $id) { monsterDrops { baseChance } droppedByWorldBosses { id } } }', variables: { id } }),
  });
  const { data } = await res.json();
  return { monsters: data.item.monsterDrops.length, bosses: data.item.droppedByWorldBosses.length };
}

const percent = (cells) => cells.map((c) => Number(c.replace(/%.*/, '').replace(/,/g, '')));
const descending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] >= x);

for (const [label, viewport] of [['desktop', { width: 1366, height: 900 }], ['phone', { width: 360, height: 740 }]]) {
  test(`${label}: an item's "Dropped by" arrives in parts over its one request, and ends whole and sorted`, async () => {
    const want = await droppers(729);
    assert.ok(want.monsters > 10, `Bones have more droppers than the first part holds (${want.monsters})`);
    const { page, check } = await openPage(browser, { viewport });
    // The table's row counts, each time the page changes them: the first
    // part's rows, then every row. And a copy of each event stream's body
    // as the page read it (DevTools keeps no body of a stream it read).
    await page.addInitScript(() => {
      window.streamBodies = [];
      const fetch = window.fetch.bind(window);
      window.fetch = async (input, init) => {
        const res = await fetch(input, init);
        if (!/^text\/event-stream/.test(res.headers.get('Content-Type') || '')) return res;
        const [mine, copy] = res.body.tee();
        // Kept as it arrives: the client aborts the request once it has
        // read the stream's end, which may error this copy before its own
        // end is read.
        const i = window.streamBodies.push('') - 1;
        const reader = copy.getReader();
        const decoder = new TextDecoder();
        (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            window.streamBodies[i] += decoder.decode(value, { stream: true });
          }
        })().catch(() => {});
        return new Response(mine, { status: res.status, statusText: res.statusText, headers: res.headers });
      };
      window.droppedByRows = [];
      new MutationObserver(() => {
        const n = document.querySelectorAll('[data-testid="dropped-by"] tbody tr').length;
        if (n && n !== window.droppedByRows.at(-1)) window.droppedByRows.push(n);
      }).observe(document, { childList: true, subtree: true });
    });
    const views = [];
    page.on('request', (req) => {
      if (viewQuery(req)) views.push(req);
    });
    await page.goto(`${gateway.url}/explorer/items/729`);
    await page.waitForSelector('main:not([aria-busy]) h1:text-is("Bones")');
    const table = '[data-testid="dropped-by"] table';
    const rows = want.monsters + want.bosses;
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="dropped-by"] tbody tr').length === n, rows);

    // One request: an event stream whose query streams the table.
    assert.deepEqual(views.map((r) => viewQuery(r)), ['ItemPage'], 'one request for the view');
    const [req] = views;
    assert.equal(req.method(), 'POST');
    assert.match(await req.headerValue('accept'), /text\/event-stream/);
    assert.match(req.postDataJSON().query, /monsterDrops @stream\(initialCount: 10\)/);
    // Its answer came in parts: the first with 10 rows, then the rest at
    // the list's path, from index 10.
    await page.waitForFunction(() => window.streamBodies.some((b) => b.includes('"monsterDrops"') && b.includes('"hasNext":false')));
    const bodies = await page.evaluate(() => window.streamBodies.filter((b) => b.includes('"monsterDrops"')));
    assert.equal(bodies.length, 1, 'one event stream answered the view');
    const events = bodies[0].split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    assert.ok(events.length >= 2, `the answer came in ${events.length} parts`);
    assert.equal(events[0].hasNext, true);
    assert.equal(events[0].data.item.monsterDrops.length, 10);
    const streamed = events.slice(1).flatMap((e) => e.incremental ?? []).filter((i) => i.path.join('.').startsWith('item.monsterDrops.'));
    assert.deepEqual(streamed[0].path, ['item', 'monsterDrops', 10]);
    assert.equal(10 + streamed.reduce((n, i) => n + i.items.length, 0), want.monsters);
    assert.equal(events.at(-1).hasNext, false);

    // The page showed the first part's rows first, then every row.
    const counts = await page.evaluate(() => window.droppedByRows);
    assert.equal(counts[0], 10 + Math.min(want.bosses, 10), `the first rows at once (${counts})`);
    assert.equal(counts.at(-1), rows, `every row in the end (${counts})`);
    // Sorted as the table says: by chance, highest first.
    const chances = percent(await page.$$eval(`${table} tbody tr`, (trs) => {
      const heads = [...trs[0].closest('table').querySelectorAll('thead th')].map((th) => th.querySelector('button').firstChild.textContent.trim());
      const i = heads.indexOf('Chance');
      return trs.map((tr) => tr.children[i].textContent.trim());
    }));
    assert.equal(chances.length, rows);
    assert.ok(descending(chances), `highest chance first: ${chances}`);
    assert.equal(await page.getAttribute(`${table} th[aria-sort]`, 'aria-sort'), 'descending');
    assert.match(await page.textContent('#how-response'), /2 parts/, 'the footer tells how it came');

    // Sorting still sends nothing.
    await page.click(`${table} thead th:nth-child(1) button`);
    assert.equal(views.length, 1, 'still one request');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, `streamed-item-${label}`);
    check();
  });
}

// A reader who sorts the table, and has its header's button focused,
// before the rest of it arrives keeps that sort and that focus: the rows
// that come sort in by it. (The page's own script sorts as soon as the
// first rows are drawn, before the next frame draws the rest.)
test('a sort chosen before the rest of the table arrives holds for the rows that come', async () => {
  const want = await droppers(729);
  const { page, check } = await openPage(browser, { viewport: { width: 1366, height: 900 } });
  await page.addInitScript(() => {
    window.sortedAt = null;
    const seen = new MutationObserver(() => {
      const button = document.querySelector('[data-testid="dropped-by"] thead th:nth-child(1) button');
      if (!button) return;
      seen.disconnect();
      window.sortedAt = document.querySelectorAll('[data-testid="dropped-by"] tbody tr').length;
      button.click();
      button.focus();
    });
    seen.observe(document, { childList: true, subtree: true });
  });
  await page.goto(`${gateway.url}/explorer/items/729`);
  const rows = want.monsters + want.bosses;
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="dropped-by"] tbody tr').length === n, rows);
  assert.equal(await page.evaluate(() => window.sortedAt), 10, 'sorted when only the first part was on screen');
  const table = '[data-testid="dropped-by"] table';
  assert.deepEqual(await page.$$eval(`${table} thead th`, (ths) => ths.map((th) => th.getAttribute('aria-sort'))).then((s) => s.slice(0, 3)),
    ['ascending', null, null], 'still sorted by its first column, A to Z');
  const names = await page.$$eval(`${table} tbody th`, (ths) => ths.map((th) => th.querySelector('a').textContent.trim()));
  assert.equal(names.length, rows);
  assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b, 'en')), 'every row, A to Z');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('th')?.cellIndex), 0, 'the focus is still on the header it was on');
  check();
});

// A table no longer than the first part comes whole in it: still one
// request, one part.
test('a monster whose loot fits the first part is one request, one part', async () => {
  const { page, check } = await openPage(browser, { viewport: { width: 1366, height: 900 } });
  const views = [];
  page.on('request', (req) => {
    if (viewQuery(req)) views.push(viewQuery(req));
  });
  await page.goto(`${gateway.url}/explorer/monsters/1`);
  await page.waitForSelector('main:not([aria-busy]) [data-testid="loot-table"] tbody tr');
  assert.equal(await page.$$eval('[data-testid="loot-table"] tbody tr', (trs) => trs.length), 7);
  assert.deepEqual(views, ['MonsterPage']);
  assert.match(await page.textContent('#how-response'), /1 part\b/);
  assert.deepEqual(await axeViolations(page), []);
  check();
});
