// The browser tests' harness: a stand-in upstream, the real gateway binary
// reading it, and Debian's Chromium driven by playwright-core, all on
// 127.0.0.1. Each test file starts its own and stops them when it ends.
//
// GATEWAY_BIN names the gateway binary (run.sh builds it); screenshots and
// the gateway's log go to ARTIFACTS_DIR (default ./artifacts).

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startGateway as sharedStartGateway } from '../gateway.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const artifacts = process.env.ARTIFACTS_DIR || join(here, 'artifacts');
mkdirSync(artifacts, { recursive: true });

export { startUpstream } from '../gateway.mjs';

// startGateway is the shared one, logging into ARTIFACTS_DIR.
export function startGateway(options = {}) {
  return sharedStartGateway({ artifacts, ...options });
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

// screens are the two the explorer is held to: a laptop's and a phone's.
export const screens = {
  laptop: { viewport: { width: 1366, height: 900 } },
  phone: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true },
};

// byTestId is the selector of an element by its data-testid.
export const byTestId = (id) => `[data-testid="${id}"]`;

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

// viewQuery is the operation name of an explorer view's one GraphQL
// request: a GET, or an event stream, a POST whose query is marked @live
// (a live view's: a list's, a world boss's) or whose @stream asks for its
// answer in parts (a record page with drop tables); null for any other
// request (the change subscription, a picture).
export function viewQuery(req) {
  const u = new URL(req.url());
  if (u.pathname !== '/graphql') return null;
  if (req.method() === 'GET') return u.searchParams.get('operationName');
  if (req.method() !== 'POST') return null;
  let body = null;
  try {
    body = req.postDataJSON();
  } catch {
    return null;
  }
  return /@live\b|@stream\b/.test(body?.query ?? '') ? body.operationName : null;
}

// viewURL is the URL of a view's request (see viewQuery): a GET's own, or,
// for a view's stream, the GET URL that asks the same operation (answered
// once, and whole), built as the explorer builds its GETs.
export function viewURL(req) {
  if (req.method() === 'GET') return req.url();
  const body = req.postDataJSON();
  const params = new URLSearchParams();
  params.set('query', body.query);
  if (body.variables && Object.keys(body.variables).length > 0) params.set('variables', JSON.stringify(body.variables));
  if (body.operationName) params.set('operationName', body.operationName);
  return `${new URL(req.url()).origin}/graphql?${params}`;
}

// screenshot saves the page as ARTIFACTS_DIR/<name>.png.
export async function screenshot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}
