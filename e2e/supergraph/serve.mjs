// The example supergraph, to run by hand (docs/graphql.md, "The example
// supergraph, locally") or under load (bench/supergraph.sh): the
// inventory subgraph on a free loopback port, composed live with a
// running gateway (the catalogue subgraph), and Hive Gateway's runtime
// serving the supergraph on 127.0.0.1. It prints the router's URL and
// runs until interrupted.
//
//   node e2e/supergraph/serve.mjs [--catalogue URL] [--port N] [--out FILE]
//
// --catalogue  the gateway's /graphql (default http://127.0.0.1:8080/graphql)
// --port       the router's port on 127.0.0.1 (default 4000; 0 for a free one)
// --out        also write the composed supergraph SDL to FILE

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startInventory } from './inventory.mjs';
import { composeLive, startRouter } from './supergraph.mjs';

const { values } = parseArgs({
  options: {
    catalogue: { type: 'string', default: 'http://127.0.0.1:8080/graphql' },
    port: { type: 'string', default: '4000' },
    out: { type: 'string' },
  },
});

const inventory = await startInventory();
let router;
try {
  const { supergraphSdl } = await composeLive([
    { name: 'catalogue', url: values.catalogue },
    { name: 'inventory', url: inventory.url },
  ]);
  if (values.out) writeFileSync(values.out, supergraphSdl);
  router = await startRouter(supergraphSdl, { port: Number(values.port) });
} catch (err) {
  await inventory.close();
  console.error(`supergraph: ${err.message}`);
  process.exit(1);
}
console.log(`inventory subgraph: ${inventory.url}`);
console.log(`catalogue subgraph: ${values.catalogue}`);
console.log(`router: ${router.url}`);

const stop = async () => {
  await router.close();
  await inventory.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
