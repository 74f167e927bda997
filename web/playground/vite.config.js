import { defineConfig } from 'vite';

// The gateway that the dev server and `vite preview` pass /graphql on to.
const gateway = process.env.GATEWAY_URL || 'http://127.0.0.1:18081';
const proxy = { '/graphql': { target: gateway } };

// The policy the gateway serves the page with (web/web.go), applied by
// `vite preview` too, so a build that breaks it shows up before it is
// embedded. Not on the dev server, which injects inline code.
const csp =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

// graphiql/style.css carries its fonts inline as data: URLs, every subset
// of every face (some 360 kB). Drop those rules: src/playground.css brings
// the faces GraphiQL uses as files of their own.
function dropInlinedFonts() {
  const graphiqlStyle = /[\\/]node_modules[\\/]graphiql[\\/]dist[\\/]style\.css$/;
  return {
    name: 'playground:drop-inlined-fonts',
    enforce: 'pre',
    transform(code, id) {
      if (!graphiqlStyle.test(id.split('?')[0])) return null;
      const out = code.replace(/@font-face\s*\{[^}]*\}/g, '');
      if (out === code) this.warn('graphiql/style.css has no @font-face rules any more: drop this plugin');
      return { code: out, map: null };
    },
  };
}

export default defineConfig({
  // The gateway serves the page at / and its assets at /playground/assets/.
  base: '/playground/',
  plugins: [dropInlinedFonts()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    sourcemap: false,
    // Every browser that runs this bundle has <link rel=modulepreload>.
    modulePreload: { polyfill: false },
    // GraphiQL with React and CodeMirror is one big chunk by nature; it is
    // served from the gateway, compressed and cached for good.
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React libraries mark their modules "use client", which means
        // nothing outside server components.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: { host: '127.0.0.1', port: 18091, strictPort: true, proxy },
  preview: { host: '127.0.0.1', port: 18091, strictPort: true, proxy, headers: { 'Content-Security-Policy': csp } },
});
