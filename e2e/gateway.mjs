// The gateway and a stand-in upstream for the end-to-end suites (browser,
// clients, supergraph, trusted): the upstream on 127.0.0.1, and the real
// gateway binary (GATEWAY_BIN) reading it, started by e2e/gateway.sh as
// every script starts one. Node's standard library only, so that every
// suite can import it whatever it installs.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
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

// startGateway runs the gateway binary (GATEWAY_BIN) through e2e/gateway.sh,
// the starter every script uses: on a free loopback port, reading upstream
// (or the embedded catalogue when upstream is null), ready when it
// returns. Its log goes to <artifacts>/<logName>.log. stop() ends it and
// resolves to its exit status.
export async function startGateway({ upstream = null, logName = 'gateway', args = [], artifacts }) {
  const bin = process.env.GATEWAY_BIN;
  if (!bin) throw new Error('GATEWAY_BIN is not set: run the tests with their run.sh');
  mkdirSync(artifacts, { recursive: true });
  const flags = [...args];
  if (upstream) flags.push('-base-url', upstream.url, '-refresh', '1s');
  const starter = spawn('bash', [join(here, 'gateway.sh'), join(artifacts, `${logName}.log`), bin, ...flags],
    { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => starter.on('exit', (code, signal) => resolve(code ?? signal)));
  let said = '';
  starter.stderr.on('data', (chunk) => { said += chunk; });

  // The starter prints the address once the gateway is ready; it gives
  // up by itself after 30 s, and this bound is only a backstop.
  const addr = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => { starter.kill('SIGTERM'); reject(new Error('the gateway was not ready within 40 s')); }, 40_000);
    starter.stdout.on('data', (chunk) => {
      seen += chunk;
      const line = seen.split('\n');
      if (line.length > 1) { clearTimeout(timer); resolve(line[0]); }
    });
    exited.then((code) => { clearTimeout(timer); reject(new Error(`the gateway did not start (${code}): ${said.trim()}`)); });
  });
  return {
    url: `http://${addr}`,
    async stop() {
      starter.kill('SIGTERM');
      // The starter sends SIGKILL after 20 s itself.
      const timer = setTimeout(() => starter.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
