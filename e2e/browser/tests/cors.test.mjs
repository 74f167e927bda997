// A page on another origin (another port of 127.0.0.1) queries /graphql,
// as a community site's frontend would: a GET, and a POST with JSON, which
// the browser sends only after a CORS preflight.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { launchBrowser, openPage, screenshot, startGateway } from '../harness.mjs';

let gateway, browser, site;

before(async () => {
  gateway = await startGateway({ logName: 'cors-gateway' });
  browser = await launchBrowser();
  // The other origin: one page, and nothing else.
  site = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>another site</title><h1>Another site</h1><pre id="out"></pre>');
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (site ? site.close(resolve) : resolve()));
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

test('a page on another origin can query /graphql by GET and POST', async () => {
  const { page, check } = await openPage(browser);
  const origin = `http://127.0.0.1:${site.address().port}`;
  assert.notEqual(new URL(gateway.url).origin, origin);
  await page.goto(`${origin}/`);

  const answers = await page.evaluate(async (endpoint) => {
    const query = 'query Item($id: Int!) { item(id: $id) { id name } }';
    const get = await fetch(`${endpoint}?query=${encodeURIComponent(query)}&variables=${encodeURIComponent('{"id":1}')}`);
    const post = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query, variables: { id: 1 } }),
    });
    const out = { get: await get.json(), post: await post.json(), etag: get.headers.get('ETag') };
    document.getElementById('out').textContent = JSON.stringify(out, null, 2);
    return out;
  }, `${gateway.url}/graphql`);

  assert.equal(answers.get.data.item.id, 1);
  assert.ok(answers.get.data.item.name, 'the GET answer has the item');
  assert.deepEqual(answers.post, answers.get, 'POST and GET give the same answer');
  assert.match(answers.etag ?? '', /^"/, 'the ETag header is exposed to the other origin');
  await screenshot(page, 'cors-other-origin');
  check();
});
