// The browser tests' harness: a stand-in upstream, the real gateway binary
// reading it, and Debian's Chromium driven by playwright-core, all on
// 127.0.0.1. Each test file starts its own and stops them when it ends.
//
// GATEWAY_BIN names the gateway binary (run.sh builds it); screenshots and
// the gateway's log go to ARTIFACTS_DIR (default ./artifacts).

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
export const artifacts = process.env.ARTIFACTS_DIR || join(here, 'artifacts');
mkdirSync(artifacts, { recursive: true });

// The upstream's 13 collections, by path; the stand-in serves the catalogue
// embedded in the gateway, byte for byte.
const collections = ['items', 'monsters', 'secretrares', 'worldboss', 'quests', 'basecamp',
  'discovery', 'mining', 'cooking', 'farming', 'forestry', 'fletching', 'event'];

// startUpstream serves the embedded catalogue as the upstream does, with
// ETags and 304s. change(name, edit) replaces a collection's body with
// edit(body) from then on.
export async function startUpstream() {
  const bodies = new Map(collections.map((c) =>
    [c, readFileSync(join(repo, 'catalogue', 'embedded', `${c}.json`))]));
  const server = createServer((req, res) => {
    const body = bodies.get(req.url.slice(1));
    if (req.method !== 'GET' || !body) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { ETag: etag }).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', ETag: etag }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    change(name, edit) {
      const before = bodies.get(name).toString();
      const after = edit(before);
      if (after === before) throw new Error(`the edit left /${name} unchanged`);
      bodies.set(name, Buffer.from(after));
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

// startGateway runs the gateway binary on a free loopback port, reading
// upstream (or the embedded catalogue when upstream is null), and waits
// until it is ready. Its log goes to ARTIFACTS_DIR/<logName>.log.
export async function startGateway({ upstream = null, logName = 'gateway', args = [] } = {}) {
  const bin = process.env.GATEWAY_BIN;
  if (!bin) throw new Error('GATEWAY_BIN is not set: run the tests with e2e/browser/run.sh');
  const flags = ['-addr', '127.0.0.1:0', ...args];
  if (upstream) flags.push('-base-url', upstream.url, '-refresh', '1s');
  const env = { ...process.env };
  for (const k of ['CATALOGUE_BASE_URL', 'CATALOGUE_WORLDBOSS_URL', 'ADDR']) delete env[k];
  const proc = spawn(bin, flags, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const log = createWriteStream(join(artifacts, `${logName}.log`));
  const exited = new Promise((resolve) => proc.on('exit', resolve));

  // The gateway logs the address it got, as JSON.
  const addr = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('the gateway logged no address within 20 s')), 20_000);
    proc.stderr.on('data', (chunk) => {
      log.write(chunk);
      seen += chunk;
      const m = seen.match(/"msg":"listening".*?"addr":"([^"]+)"/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    exited.then((code) => { clearTimeout(timer); reject(new Error(`the gateway exited (${code}) before listening`)); });
  });
  const url = `http://${addr}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`the gateway at ${url} was not ready within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      log.end();
      return code;
    },
  };
}

// Chromium as the machine has it: headless, and with everything that would
// reach the network on its own (updates, sync, safe browsing) turned off.
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// openPage opens a page in a fresh context that refuses, and records, any
// request leaving 127.0.0.1, and records console errors and uncaught
// exceptions. check() fails if anything was recorded. options go to the
// context (a phone's viewport, a time zone).
export async function openPage(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
  const offsite = [];
  const errors = [];
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if ((u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ws:' || u.protocol === 'wss:')
      && u.hostname !== '127.0.0.1') {
      offsite.push(u.href);
      return route.abort('blockedbyclient');
    }
    return route.continue();
  });
  const page = await context.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(`console: ${msg.text()}`); });
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
  return {
    page,
    context,
    offsite,
    errors,
    check() {
      if (offsite.length) throw new Error(`requests left 127.0.0.1:\n${offsite.join('\n')}`);
      if (errors.length) throw new Error(`the page reported errors:\n${errors.join('\n')}`);
    },
  };
}

// axeViolations runs axe-core in the page (evaluated through the
// DevTools protocol, which the page's Content-Security-Policy does not
// govern) and returns its serious and critical violations, each as
// "rule: target, target".
const axeSource = readFileSync(join(here, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
export async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

// screenshot saves the page as ARTIFACTS_DIR/<name>.png.
export async function screenshot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}
