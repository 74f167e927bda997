// The explorer as a catalogue site: every page type is reached by
// following links, asks one GET query, has its own title and passes axe;
// the search box suggests as you type and is driven by the keyboard; a
// list sorts, pages and filters with its state in the URL, and Back and
// Forward walk through it; a repeated view is revalidated with a 304.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, byTestId, launchBrowser, openPage, screenshot, startGateway, viewQuery, viewURL } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'site-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

const SITE = 'Catalogue explorer';

// The collections, by the label of their link in the site's navigation and
// the path of their pages.
const kinds = [
  ['Items', 'items'], ['Monsters', 'monsters'], ['Quests', 'quests'], ['Base camp levels', 'base-camps'],
  ['Discovery locations', 'discovery'], ['Mining rocks', 'mining'], ['Cooking recipes', 'cooking'],
  ['Fletching recipes', 'fletching'], ['Farming seeds', 'farming'], ['Forestry trees', 'forestry'],
  ['Event chests', 'event-chests'], ['Secret rares', 'secret-rares'], ['World bosses', 'world-bosses'],
];

// watchQueries records the operation names of the queries a page sends,
// a view's one request each (a GET, or a live view's stream), and their URLs.
function watchQueries(page) {
  const sent = [];
  page.on('request', (req) => {
    if (viewQuery(req)) sent.push({ name: viewQuery(req), url: viewURL(req) });
  });
  return sent;
}

// settle waits until the view is shown: main not busy, an h1 in it.
async function settle(page) {
  await page.waitForSelector('main:not([aria-busy]) h1');
}

async function checkPage(page, name) {
  const h1 = (await page.textContent('main h1')).trim();
  const title = await page.title();
  assert.ok(title === SITE || title === `${h1} · ${SITE}` || title.endsWith(` · ${SITE}`), `${name}: title "${title}" for "${h1}"`);
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', `${name}: the focus is on the new content`);
  assert.deepEqual(await axeViolations(page), [], `${name}: no serious or critical axe violation`);
  await screenshot(page, `site-${name}`);
  return h1;
}

test('every kind of record has a list and pages, reached by links, one query each, accessible', async () => {
  const { page, check } = await openPage(browser);
  const sent = watchQueries(page);
  await page.goto(`${gateway.url}/explorer`);
  await settle(page);
  assert.deepEqual(await axeViolations(page), [], 'home: no serious or critical axe violation');
  await screenshot(page, 'site-home');
  assert.deepEqual(sent.map((s) => s.name), ['Home']);

  for (const [label, path] of kinds) {
    // The site's navigation leads to the list…
    let from = sent.length;
    await page.click(`nav[aria-label="Collections"] a:text-is("${label}")`);
    await page.waitForURL(`**/explorer/${path}`);
    await settle(page);
    assert.equal((await page.textContent('main h1')).trim(), label);
    await checkPage(page, `list-${path}`);
    assert.equal(sent.length - from, 1, `the ${label} list sent one query`);
    assert.match(sent.at(-1).name, /List$/);

    // …and the list to a record's page, whose every link is the explorer's.
    from = sent.length;
    const first = page.locator(byTestId('list-link')).first();
    const name = (await first.textContent()).trim();
    const href = await first.getAttribute('href');
    assert.match(href, new RegExp(`^/explorer/${path}/\\d+$`));
    await first.click();
    await page.waitForURL(`**${href}`);
    await settle(page);
    assert.equal((await page.textContent('main h1')).trim(), name, `${label}: the page of ${name}`);
    await checkPage(page, `page-${path}`);
    assert.equal(sent.length - from, 1, `the page of ${name} sent one query`);
    assert.match(sent.at(-1).name, /Page$/);
    const links = await page.$$eval('main a[href]', (as) => as.map((a) => a.getAttribute('href')));
    for (const l of links) assert.match(l, /^\/explorer(\/|$|\?)/, `${href} links to ${l}`);
  }
  // No request carries anything but the query, its variables and its name:
  // nothing that would make one view's URL differ from the next time's.
  for (const { url } of sent) {
    assert.deepEqual([...new URL(url).searchParams.keys()].filter((k) => !['query', 'variables', 'operationName'].includes(k)), []);
  }
  check();
});

test('record pages link every kind they name', async () => {
  const { page, check } = await openPage(browser);
  // Steel Arrowheads: dropped by the Kobold, rewarded by a quest, used in
  // fletching recipes.
  await page.goto(`${gateway.url}/explorer/items/197`);
  await settle(page);
  const hrefs = await page.$$eval('main a[href]', (as) => as.map((a) => a.getAttribute('href')));
  for (const p of ['/explorer/monsters/16', '/explorer/quests/29']) assert.ok(hrefs.includes(p), `the item links ${p}`);
  assert.ok(hrefs.some((h) => /^\/explorer\/fletching\/\d+$/.test(h)), 'the item links its fletching recipes');

  // A quest's chain: its prerequisite and what it unlocks.
  await page.goto(`${gateway.url}/explorer/quests/5`);
  await settle(page);
  assert.equal(await page.getAttribute(byTestId('prerequisite-link'), 'href'), '/explorer/quests/3');
  assert.equal(await page.getAttribute(byTestId('unlock-link'), 'href'), '/explorer/quests/9', 'the chain links what it unlocks');
  assert.equal(await page.$(byTestId('unlocks')), null, 'what the chain shows is not listed again');
  assert.ok(await page.$(`${byTestId('quest-chain')} [aria-current="page"]`), 'the chain marks this quest');

  // Materials of a recipe are item pages.
  await page.goto(`${gateway.url}/explorer/cooking/1`);
  await settle(page);
  assert.ok((await page.$$(`${byTestId('materials-list')} a[href^="/explorer/items/"]`)).length > 0);
  check();
});

test('search as you type: suggestions grouped by kind, arrows, Enter and Escape', async () => {
  const { page, check } = await openPage(browser);
  const sent = watchQueries(page);
  await page.goto(`${gateway.url}/explorer`);
  await settle(page);
  const input = page.locator(byTestId('search-input'));
  assert.equal(await input.getAttribute('role'), 'combobox');
  await input.focus();

  const text = 'steel ar';
  await page.keyboard.type(text, { delay: 40 });
  const listbox = page.locator(byTestId('suggestions'));
  await page.waitForSelector(`${byTestId('suggestions')} [role="option"]:has-text("All results for “${text}”")`);
  assert.equal(await input.getAttribute('aria-expanded'), 'true');
  // Only whole pauses asked: never more queries than keys after the
  // second, and the last asked for the whole text.
  const searches = sent.filter((s) => s.name === 'Search');
  assert.ok(searches.length >= 1 && searches.length <= text.length - 1, `${searches.length} searches for ${text.length} keys`);
  assert.equal(JSON.parse(new URL(searches.at(-1).url).searchParams.get('variables')).text, text);
  // Grouped by kind, each group labelled.
  const groups = await listbox.locator('[role="group"]').evaluateAll((gs) =>
    gs.map((g) => g.getAttribute('aria-label') || document.getElementById(g.getAttribute('aria-labelledby'))?.textContent));
  assert.ok(groups.includes('Items'), `groups: ${groups}`);
  await screenshot(page, 'site-suggestions');
  assert.deepEqual(await axeViolations(page), [], 'the open suggestions pass axe');

  // Arrows move the active option; Enter opens it.
  await page.keyboard.press('ArrowDown');
  const activeId = await input.getAttribute('aria-activedescendant');
  assert.ok(activeId, 'an option is active');
  const option = page.locator(`#${activeId}`);
  assert.equal(await option.getAttribute('aria-selected'), 'true');
  const target = await option.getAttribute('data-href');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  assert.equal(await input.getAttribute('aria-activedescendant'), activeId, 'down and up come back');
  await page.keyboard.press('Enter');
  await page.waitForURL(`**${target}`);
  await settle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1');
  assert.equal(await listbox.isHidden(), true);

  // Escape closes the suggestions, and only that: a second Escape keeps
  // the text (issue 36: a wiped box left Search nothing to send).
  await input.focus();
  await page.keyboard.type('troll', { delay: 40 });
  await listbox.waitFor({ state: 'visible' });
  await page.keyboard.press('Escape');
  await listbox.waitFor({ state: 'hidden' });
  assert.equal(await input.getAttribute('aria-expanded'), 'false');
  await page.keyboard.press('Escape');
  assert.equal(await input.inputValue(), 'troll');
  await input.fill('');

  // Enter with no option chosen: the search page, grouped by kind.
  await page.keyboard.type('lantern', { delay: 40 });
  await page.keyboard.press('Enter');
  await page.waitForURL('**/explorer/search?q=lantern');
  await settle(page);
  assert.ok(await page.$(`${byTestId('result-quests')}`), 'quests named lantern are found');
  check();
});

test('a list sorts and pages by its URL; Back and Forward walk through it; a repeat view costs a 304', async () => {
  const { page, check } = await openPage(browser);
  const sent = watchQueries(page);
  await page.goto(`${gateway.url}/explorer/items`);
  await settle(page);
  const firstRows = async () => page.$$eval(`${byTestId('list-table')} tbody tr`, (trs) => trs.map((tr) => tr.querySelector('th').textContent));
  const values = async () => page.$$eval(`${byTestId('list-table')} tbody td.num:nth-of-type(4)`, (tds) => tds.map((td) => Number(td.textContent.replace(/,/g, ''))));
  const unsorted = await firstRows();

  // Sort by value: largest first at the first click, with aria-sort.
  await page.click(byTestId('sort-value'));
  await page.waitForURL('**/explorer/items?sort=value&dir=desc');
  await page.waitForSelector('th[aria-sort="descending"] [data-testid="sort-value"]');
  await settle(page);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'sort-value', 'the focus stays on the sort');
  const page1 = await firstRows();
  const v1 = await values();
  assert.deepEqual(v1, [...v1].sort((a, b) => b - a), 'largest value first');
  assert.equal(await page.getAttribute('th:has([data-testid="sort-name"])', 'aria-sort'), 'none');
  await screenshot(page, 'site-list-sorted');

  // The next page, by cursor, and the one before it again.
  await page.click(byTestId('page-next'));
  await page.waitForURL(/\/explorer\/items\?sort=value&dir=desc&after=/);
  await settle(page);
  const page2 = await firstRows();
  assert.notDeepEqual(page2, page1);
  assert.ok(Math.max(...(await values())) <= Math.min(...v1), 'page 2 goes on where page 1 ended');
  await page.click(byTestId('page-prev'));
  await page.waitForURL(/before=/);
  await settle(page);
  assert.deepEqual(await firstRows(), page1, 'previous is page 1 again');

  // Back and Forward.
  await page.goBack();
  await page.waitForURL(/after=/);
  await page.waitForFunction((first) => document.querySelector('[data-testid="list-table"] tbody th')?.textContent === first, page2[0]);
  await page.goBack();
  await page.waitForURL('**/explorer/items?sort=value&dir=desc');
  await page.waitForFunction((first) => document.querySelector('[data-testid="list-table"] tbody th')?.textContent === first, page1[0]);
  await page.goBack();
  await page.waitForURL('**/explorer/items');
  await page.waitForFunction((first) => document.querySelector('[data-testid="list-table"] tbody th')?.textContent === first, unsorted[0]);
  await page.goForward();
  await page.waitForURL('**/explorer/items?sort=value&dir=desc');
  await page.waitForFunction((first) => document.querySelector('[data-testid="list-table"] tbody th')?.textContent === first, page1[0]);
  assert.equal(await page.getAttribute('th:has([data-testid="sort-value"])', 'aria-sort'), 'descending');

  // A filter is a URL too.
  await page.selectOption('#filter-rarity', 'Epic');
  await page.click(`${byTestId('filters')} button[type="submit"]`);
  await page.waitForURL('**/explorer/items?rarity=Epic&sort=value&dir=desc');
  await settle(page);
  assert.equal(await page.textContent(byTestId('list-count')), '309 items match.');

  // The same view asks with the same URL, and the gateway answers a
  // revalidation with 304.
  const urls = sent.filter((s) => s.name === 'ItemList').map((s) => s.url);
  const vars = (u) => JSON.parse(new URL(u).searchParams.get('variables'));
  const sortedURL = urls.find((u) => vars(u).orderBy && !vars(u).after && !vars(u).before && !vars(u).filter);
  assert.equal(urls.filter((u) => u === sortedURL).length, 3, 'the sorted first page was asked three times, with one URL');
  const res = await fetch(sortedURL, { headers: { Accept: 'application/graphql-response+json, application/json' } });
  const etag = res.headers.get('etag');
  assert.ok(etag, 'the view is answered with an ETag');
  const again = await fetch(sortedURL, { headers: { Accept: 'application/graphql-response+json, application/json', 'If-None-Match': etag } });
  assert.equal(again.status, 304);
  check();
});

test('on a phone: nothing wider than the screen, and the keyboard reaches the list', async () => {
  const { page, check } = await openPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  for (const path of ['/explorer/items', '/explorer/items/197', '/explorer/world-bosses', '/explorer/quests/5']) {
    await page.goto(`${gateway.url}${path}`);
    await settle(page);
    // Against the layout viewport too: a phone zooms out to fit a page
    // that is too wide, and innerWidth grows with it.
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth - Math.min(window.innerWidth, document.documentElement.clientWidth));
    assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the screen`);
    await screenshot(page, `site-phone${path.replaceAll('/', '-')}`);
  }
  // Visible focus: a tabbed-to link is outlined.
  await page.goto(`${gateway.url}/explorer/items`);
  await settle(page);
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'the focused element shows it');
  check();
});

test('filters are choices with counts, from the list\'s own query, ignoring case', async () => {
  const { page, check } = await openPage(browser);
  const sent = watchQueries(page);
  await page.goto(`${gateway.url}/explorer/items`);
  await settle(page);
  assert.deepEqual(sent.map((s) => s.name), ['ItemList'], 'the list and its choices come in one request');
  assert.match(new URL(sent[0].url).searchParams.get('query'), /facets \{ field values \{ value count \} \}/);
  // The rarity is a choice among the rarities the items hold, each with
  // its count; no free text.
  assert.equal(await page.$eval('#filter-rarity', (el) => el.tagName), 'SELECT');
  const labels = await page.$$eval('#filter-rarity option', (os) => os.map((o) => o.textContent));
  assert.equal(labels[0], 'Any');
  const epic = labels.find((l) => /^Epic \(/.test(l));
  assert.ok(epic, `an Epic choice among ${labels}`);
  const count = epic.match(/\(([\d,]+)\)/)[1];
  // Type the first letters of "epic" in the closed choice, as a keyboard
  // user would, and filter.
  await page.focus('#filter-rarity');
  await page.keyboard.type('epic');
  assert.equal(await page.inputValue('#filter-rarity'), 'Epic');
  const from = sent.length;
  await page.click(`${byTestId('filters')} button[type="submit"]`);
  await page.waitForURL('**/explorer/items?rarity=Epic');
  // The list on screen stays until the filtered one is drawn.
  await page.waitForFunction(() => /match\.$/.test(document.querySelector('main:not([aria-busy]) [data-testid="list-count"]')?.textContent ?? ''));
  assert.equal(sent.length - from, 1, 'the filtered list sent one query');
  assert.equal(await page.textContent(byTestId('list-count')), `${count} items match.`, 'the choice counted the list');
  const rarities = await page.$$eval(`${byTestId('list-table')} tbody .badge`, (bs) => bs.map((b) => b.textContent));
  assert.ok(rarities.length > 0 && rarities.every((r) => r === 'Epic'), `only Epic items: ${rarities}`);
  // Under this filter the type's counts are the Epic items'.
  const typeCounts = await page.$$eval('#filter-type option', (os) => os.slice(1).map((o) => Number(o.textContent.match(/\(([\d,]+)\)$/)[1].replace(/,/g, ''))));
  assert.equal(typeCounts.reduce((a, b) => a + b, 0), Number(count.replace(/,/g, '')), 'the types of the Epic items add up to them');
  assert.deepEqual(await axeViolations(page), [], 'the choices pass axe');
  await screenshot(page, 'site-list-choices');

  // "epic" in the URL, as typed by hand: the same list, Epic chosen.
  await page.goto(`${gateway.url}/explorer/items?rarity=epic`);
  await settle(page);
  assert.equal(await page.textContent(byTestId('list-count')), `${count} items match.`);
  assert.equal(await page.inputValue('#filter-rarity'), 'Epic');
  check();
});

// shownFor waits for the search page of a text: the page on screen stays
// until the next is drawn.
async function shownFor(page, text) {
  await page.waitForFunction((t) => document.querySelector('main:not([aria-busy]) h1 q')?.textContent === t, text);
}

// suggestionsShownFor waits until the suggestions under the search box
// are shown for text: their Search query has been answered.
async function suggestionsShownFor(page, text) {
  await page.waitForFunction((t) => {
    const list = document.querySelector('[data-testid="suggestions"]');
    return list && !list.hidden && list.textContent.includes(`All results for “${t}”`);
  }, text);
}

test('search ranks names, forgives a typo with "Did you mean", shows each kind, one GET', async () => {
  const { page, check } = await openPage(browser);
  const sent = watchQueries(page);
  await page.goto(`${gateway.url}/explorer`);
  await settle(page);
  const input = page.locator(byTestId('search-input'));

  // "tro": Troll Tooth (a prefix) before Beetroot Seed (inside a word).
  // The suggestions' own Search (after a pause in typing) is sent before
  // the count starts: on a slow machine the pause can end before the
  // click.
  await input.fill('tro');
  await suggestionsShownFor(page, 'tro');
  let from = sent.length;
  await page.click(byTestId('search-submit'));
  await page.waitForURL('**/explorer/search?q=tro');
  await shownFor(page, 'tro');
  assert.deepEqual(sent.slice(from).map((s) => s.name).filter((n) => n === 'Search').length, 1, 'the search page sent one query');
  const names = await page.$$eval(`${byTestId('search-results')} li > a`, (as) => as.map((a) => a.textContent));
  assert.ok(names.indexOf('Troll Tooth') >= 0, `Troll Tooth among ${names}`);
  assert.ok(names.indexOf('Beetroot Seed') > names.indexOf('Troll Tooth'), 'Troll Tooth before Beetroot Seed');
  assert.equal(await page.$(byTestId('did-you-mean')), null, '"tro" is in names: no "did you mean"');
  // Each result names its kind and links its record's page.
  const kinds = await page.$$eval(byTestId('result-kind'), (ks) => ks.map((k) => k.textContent));
  assert.ok(kinds.includes('item') && kinds.includes('monster'), `kinds: ${[...new Set(kinds)]}`);
  const troll = page.locator(`${byTestId('search-results')} li`, { hasText: 'Troll Tooth' }).first();
  assert.match(await troll.locator('a').getAttribute('href'), /^\/explorer\/items\/\d+$/);
  assert.deepEqual(await axeViolations(page), [], 'the search page passes axe');

  // "bnoe": no name has it; Bones is one typo away.
  await input.fill('bnoe');
  await suggestionsShownFor(page, 'bnoe');
  from = sent.length;
  await page.click(byTestId('search-submit'));
  await page.waitForURL('**/explorer/search?q=bnoe');
  await shownFor(page, 'bnoe');
  assert.equal(sent.slice(from).filter((s) => s.name === 'Search').length, 1, 'one query');
  // The word, as a wiki offers it, a search for it (issue 36).
  assert.equal((await page.textContent(byTestId('did-you-mean'))).trim(), 'Did you mean bones or bone?');
  const href = await page.getAttribute(`${byTestId('did-you-mean')} a`, 'href');
  assert.equal(href, '/explorer/search?q=bones');
  await screenshot(page, 'site-search-did-you-mean');
  assert.deepEqual(await axeViolations(page), [], '"did you mean" passes axe');

  // Back to "tro", Forward to "bnoe"; then the suggestion is a link.
  await page.goBack();
  await page.waitForURL('**/explorer/search?q=tro');
  await shownFor(page, 'tro');
  assert.equal(await page.$(byTestId('did-you-mean')), null);
  await page.goForward();
  await page.waitForURL('**/explorer/search?q=bnoe');
  await page.waitForSelector(byTestId('did-you-mean'));
  await page.click(`${byTestId('did-you-mean')} a`);
  await page.waitForURL(`**${href}`);
  await shownFor(page, 'bones');
  assert.equal(await page.textContent(`${byTestId('search-results')} li > a >> nth=0`), 'Bones');

  // A suggestion for a monster with no level or area shows no "null".
  await input.focus();
  await input.fill('');
  await page.keyboard.type('cockatrice', { delay: 30 });
  const option = page.locator(`${byTestId('suggestions')} [role="option"]`, { hasText: 'Cockatrice' }).first();
  await option.waitFor();
  const texts = await page.$$eval(`${byTestId('suggestions')} [role="option"]`, (os) => os.map((o) => o.textContent));
  assert.ok(texts.includes('Cockatrice'), `a bare Cockatrice among ${texts}`);
  for (const t of texts) assert.doesNotMatch(t, /null|undefined/, `suggestion "${t}"`);
  check();
});
