// The gateway and a stand-in upstream for the end-to-end suites (browser,
// clients): the upstream on 127.0.0.1, and the real gateway binary
// (GATEWAY_BIN) reading it. Node's standard library only, so that every
// suite can import it whatever it installs.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');

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
// until it is ready. Its log goes to <artifacts>/<logName>.log.
export async function startGateway({ upstream = null, logName = 'gateway', args = [], artifacts }) {
  const bin = process.env.GATEWAY_BIN;
  if (!bin) throw new Error('GATEWAY_BIN is not set: run the tests with their run.sh');
  mkdirSync(artifacts, { recursive: true });
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

