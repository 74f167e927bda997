// The playground at /, as someone exploring the API meets it: it loads
// with nothing from another host and no console error, opens on a nested
// example query that runs, runs a query typed into the editor (by GET), and
// one with @defer and @stream (its parts merged as they arrive), and its
// docs show the schema's descriptions; /playground leads to it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, screenshot, startGateway } from '../harness.mjs';

let gateway, browser;

before(async () => {
  gateway = await startGateway({ logName: 'playground-gateway' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

const editor = '.graphiql-query-editor .CodeMirror';

// result is the result pane's whole text (CodeMirror renders only the
// lines on screen, so it is read from the editor, not the DOM).
const result = (page) => page.evaluate(() =>
  document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue() ?? '');

// waitForResult waits until the result pane holds JSON that pred accepts.
async function waitForResult(page, pred) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const text = await result(page);
    try {
      const json = JSON.parse(text);
      if (pred(json)) return json;
    } catch { /* not yet JSON */ }
    if (Date.now() > deadline) throw new Error(`the result pane shows: ${text.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the playground loads offline and runs its example and a typed query', async () => {
  const { page, check } = await openPage(browser);
  const graphqlRequests = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === '/graphql') graphqlRequests.push(req);
  });
  const introspection = page.waitForResponse((r) => r.url().includes('/graphql?') &&
    r.url().includes('IntrospectionQuery'));
  await page.goto(`${gateway.url}/`);
  assert.equal((await introspection).status(), 200, 'the schema is read by GET');
  await page.waitForSelector(editor);
  await screenshot(page, 'playground-loaded');

  // The example query: nested relations, run as it opens.
  const example = await page.evaluate((sel) => document.querySelector(sel).CodeMirror.getValue(), editor);
  assert.match(example, /droppedByMonsters/, 'the example query shows nested relations');
  await page.click('.graphiql-execute-button');
  const answer = await waitForResult(page, (j) => j.data || j.errors);
  assert.equal(answer.errors, undefined, `the example query has no errors: ${JSON.stringify(answer.errors)}`);
  assert.equal(answer.data.item.name, 'Chicken Feather', "the README's example, with its variables");
  assert.ok(answer.data.item.monsterDrops.length > 0, 'the example item is dropped');
  assert.ok(answer.data.item.monsterDrops.every((d) => d.monster?.name), 'its drops name their monsters');
  await screenshot(page, 'playground-example-query');

  // A query typed into the editor, by keyboard.
  await page.click(`${editor} .CodeMirror-lines`);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText('query Typed { item(id: 1) { id name droppedByMonsters { name } } }');
  await page.waitForTimeout(400); // GraphiQL reads the operation name 100 ms after an edit
  await page.keyboard.press('Control+Enter');
  const typed = await waitForResult(page, (j) => j.data?.item?.id === 1);
  assert.equal(typeof typed.data.item.name, 'string');
  const run = graphqlRequests.at(-1);
  assert.equal(run.method(), 'GET', 'a query is sent by GET, so it can be cached');
  assert.match(run.url(), /operationName=Typed/);
  await screenshot(page, 'playground-typed-query');

  // The docs explorer shows the schema's own descriptions.
  await page.click('button[aria-label="Show Documentation Explorer"]');
  await page.waitForSelector('.graphiql-doc-explorer-content');
  await screenshot(page, 'playground-docs-root');
  await page.click('.graphiql-doc-explorer-content a:text-is("Query")');
  await page.waitForSelector('.graphiql-doc-explorer-content :text("The catalogue of the game")');
  await screenshot(page, 'playground-docs');

  check();
});

test('a query with @defer and @stream shows its parts merged as they arrive', async () => {
  const { page, check } = await openPage(browser);
  const streams = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/graphql' && r.request().method() === 'POST') streams.push(r);
  });
  await page.goto(`${gateway.url}/`);
  await page.waitForSelector(editor);
  await page.click(`${editor} .CodeMirror-lines`);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText('query Parts { items(first: 3) { nodes @stream(initialCount: 1) { id ... @defer(label: "more") { name } } } }');
  await page.waitForTimeout(400); // GraphiQL reads the operation name 100 ms after an edit
  await page.keyboard.press('Control+Enter');
  const merged = await waitForResult(page, (j) => j.data?.items?.nodes?.length === 3 && j.data.items.nodes.every((n) => n.name));
  assert.deepEqual(merged.data.items.nodes.map((n) => n.id), [1, 2, 3]);
  const res = streams.at(-1);
  assert.equal(res.headers()['content-type'], 'text/event-stream', 'the parts come as an event stream');
  const events = (await res.text()).match(/^event: next$/gm) ?? [];
  assert.ok(events.length >= 4, `${events.length} next events: the first, the stream's items, a part per deferred fragment`);
  await screenshot(page, 'playground-incremental');
  check();
});

test('/playground leads to the playground, keeping its query string; the example query is above the fold', async () => {
  // A laptop's window, less the browser's own bars.
  const { page, check } = await openPage(browser, { viewport: { width: 1280, height: 600 } });
  await page.goto(`${gateway.url}/playground?from=bookmark`);
  assert.equal(page.url(), `${gateway.url}/?from=bookmark`);
  await page.waitForSelector(editor);
  // The query's first line is in the editor's visible part, under the
  // three-line comment.
  const line = page.locator(`${editor} .CodeMirror-line:has-text("query Feather")`);
  await line.waitFor({ state: 'attached' });
  const [box, shown] = await Promise.all([line.boundingBox(), page.locator(`${editor} .CodeMirror-scroll`).boundingBox()]);
  assert.ok(box && box.y + box.height <= shown.y + shown.height,
    `the query's first line ends at ${box && box.y + box.height}px, the editor shows down to ${shown.y + shown.height}px`);
  // The comment's lines are shown whole, not cut at the pane's edge.
  const lines = await page.evaluate((sel) => {
    const edge = document.querySelector(`${sel} .CodeMirror-scroll`).getBoundingClientRect().right;
    return [...document.querySelectorAll(`${sel} .CodeMirror-line`)].slice(0, 3)
      .map((l) => ({ text: l.textContent, over: l.firstElementChild.getBoundingClientRect().right - edge }));
  }, editor);
  for (const l of lines) assert.ok(l.over <= 0, `"${l.text}" runs ${l.over}px past the editor's edge`);
  await screenshot(page, 'playground-above-the-fold');
  check();
});
