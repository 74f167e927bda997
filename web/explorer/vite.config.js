import { defineConfig } from 'vite';

// The gateway the dev server and `vite preview` pass /graphql on to.
const gateway = process.env.GATEWAY_URL || 'http://127.0.0.1:18082';

// Built pages may fetch, load and connect to their own origin only: this
// is what keeps every request of the explorer on the gateway, whatever a
// record's data says (pictures come from the gateway's /images/, which
// fetches them from the catalogue's addresses; the page never does). Only
// the build gets it: the dev server injects inline scripts and styles for
// hot reloading.
const csp = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

function contentSecurityPolicy() {
  return {
    name: 'explorer-csp',
    apply: 'build',
    // Right after <meta charset>, before any script or stylesheet it
    // must govern.
    transformIndexHtml(html) {
      const meta = `<meta http-equiv="Content-Security-Policy" content="${csp}" />`;
      return html.replace(/(<meta charset="utf-8" \/>)/, `$1\n    ${meta}`);
    },
  };
}

// The gateway serves the explorer at /explorer as well as under
// /explorer/; Vite's servers know only the latter, so they get the same
// view of the bare path here (dev and preview only).
function bareBase() {
  const rewrite = (req, _res, next) => {
    if (req.url === '/explorer' || req.url.startsWith('/explorer?')) req.url = `/explorer/${req.url.slice(9)}`;
    next();
  };
  return {
    name: 'explorer-bare-base',
    configureServer: (server) => void server.middlewares.use(rewrite),
    configurePreviewServer: (server) => void server.middlewares.use(rewrite),
  };
}

const proxy = { '/graphql': { target: gateway }, '/images': { target: gateway } };

export default defineConfig({
  base: '/explorer/',
  plugins: [contentSecurityPolicy(), bareBase()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    sourcemap: false,
    // Every browser that runs ES modules has modulepreload or does not
    // need it for a single chunk.
    modulePreload: { polyfill: false },
  },
  server: { host: '127.0.0.1', port: 18092, strictPort: true, proxy },
  preview: { host: '127.0.0.1', port: 18092, strictPort: true, proxy },
});
