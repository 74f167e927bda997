// The gateway in a real supergraph: the built binary, as the catalogue
// subgraph, beside the inventory subgraph (@apollo/subgraph); their SDLs
// fetched live and composed by @theguild/federation-composition; Hive
// Gateway's runtime serving the supergraph. Cross-subgraph queries through
// it get the catalogue's own answers, the catalogue is asked once per
// query plan step however many entries there are (a counting proxy sits
// between the router and the catalogue) and loads them in one batch, and
// composition fails when the catalogue's entities change incompatibly.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startGateway } from '../../gateway.mjs';
import { startInventory, missingItemId, players } from '../inventory.mjs';
import { compose, composeLive, post, startCountingProxy, startRouter } from '../supergraph.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const artifacts = process.env.ARTIFACTS_DIR || join(here, '..', 'artifacts');
const bounded = { timeout: 60_000 };

let gateway, catalogueURL, proxy, inventory, router, composed;

before(async () => {
  gateway = await startGateway({ logName: 'supergraph-gateway', artifacts });
  catalogueURL = `${gateway.url}/graphql`;
  proxy = await startCountingProxy(catalogueURL);
  inventory = await startInventory();
  // The router reaches the catalogue through the proxy, so the
  // supergraph names the proxy's URL for it.
  composed = await composeLive([
    { name: 'catalogue', url: proxy.url },
    { name: 'inventory', url: inventory.url },
  ]);
  router = await startRouter(composed.supergraphSdl);
}, bounded);

after(async () => {
  await router?.close();
  await inventory?.close();
  await proxy?.close();
  assert.equal(await gateway?.stop(), 0, 'the gateway exits cleanly');
});

// direct asks the catalogue itself, not through the proxy.
async function direct(query) {
  const answer = await post(catalogueURL, query);
  assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
  return answer.data;
}

// byIds asks the catalogue for each id's record, by the root field
// (item or monster) with selection, 25 ids a request (the gateway allows
// 30 aliases a query).
async function byIds(field, ids, selection) {
  const records = new Map();
  for (let i = 0; i < ids.length; i += 25) {
    const chunk = ids.slice(i, i + 25);
    const data = await direct(`{ ${chunk.map((id) => `r${id}: ${field}(id: ${id}) ${selection}`).join(' ')} }`);
    for (const id of chunk) records.set(id, data[`r${id}`]);
  }
  return records;
}

const crossQuery = `query Players($first: Int) {
  players(first: $first) {
    id
    inventory { quantity item { id name rarity } }
    bestiary { kills monster { id name combatLevel } }
  }
}`;

test('the supergraph composes from the live SDLs, the catalogue keying its records by id', bounded, async () => {
  const sdl = composed.supergraphSdl;
  assert.match(sdl, /@join__graph\(name: "catalogue"/);
  assert.match(sdl, /@join__graph\(name: "inventory"/);
  const head = (type) => sdl.match(new RegExp(`type ${type}\\b[^{]*\\{`))?.[0] ?? '';
  for (const type of ['Item', 'Monster']) {
    assert.match(head(type), /@join__type\(graph: CATALOGUE, key: "id"\)/, `${type} is the catalogue's entity`);
  }
  assert.match(head('Item'), /@join__type\(graph: INVENTORY, key: "id"\)/, 'the inventory extends Item (heldBy)');
  assert.match(head('Monster'), /@join__type\(graph: INVENTORY, key: "id", resolvable: false\)/, 'and references Monster');
  // The router's API schema joins both: the inventory's entries hold the
  // catalogue's items, with their fields.
  const answer = await post(router.url, '{ __type(name: "InventoryEntry") { fields { name type { name } } } }');
  assert.deepEqual(answer.data.__type.fields.map((f) => [f.name, f.type.name]), [['quantity', null], ['item', 'Item']]);
  // And the catalogue's types keep the catalogue's descriptions.
  const describe = '{ item: __type(name: "Item") { description } monster: __type(name: "Monster") { description } }';
  const described = await post(router.url, describe);
  assert.deepEqual(described.data, await direct(describe));
  assert.match(described.data.item.description, /\S/);
});

test("cross-subgraph: players' items and monsters are the catalogue's own", bounded, async () => {
  const expected = players(20);
  const answer = await post(router.url, crossQuery, { first: 20 });
  const got = answer.data.players;
  assert.deepEqual(got.map((p) => p.id), expected.map((p) => p.id));

  const itemIds = [...new Set(expected.flatMap((p) => p.inventory.map((e) => e.itemId)))];
  const monsterIds = [...new Set(expected.flatMap((p) => p.bestiary.map((e) => e.monsterId)))];
  const items = await byIds('item', itemIds, '{ id name rarity }');
  const monsters = await byIds('monster', monsterIds, '{ id name combatLevel }');
  assert.equal(items.get(missingItemId), null, 'the catalogue has no item of the missing id');
  assert.ok([...items.values()].filter(Boolean).length > itemIds.length / 2, 'most ids name an item');

  const nullPaths = new Set();
  got.forEach((player, p) => {
    player.inventory.forEach((entry, k) => {
      const want = expected[p].inventory[k];
      assert.equal(entry.quantity, want.quantity);
      assert.deepEqual(entry.item, items.get(want.itemId), `player ${player.id}'s item ${want.itemId}`);
      if (entry.item === null) nullPaths.add(JSON.stringify(['players', p, 'inventory', k, 'item']));
    });
    player.bestiary.forEach((entry, k) => {
      const want = expected[p].bestiary[k];
      assert.equal(entry.kills, want.kills);
      // A monster's fields are nullable: for an id the catalogue lacks
      // the router keeps the inventory's id and has null for the rest.
      const monster = monsters.get(want.monsterId) ?? { id: want.monsterId, name: null, combatLevel: null };
      assert.deepEqual(entry.monster, monster, `player ${player.id}'s monster ${want.monsterId}`);
    });
  });
  // An id the catalogue lacks is null from _entities, as everywhere else;
  // the router, asked a non-null field of it, reports an error at that
  // entry and nulls the item. There are no other errors.
  assert.ok(nullPaths.size >= 1, 'the missing item is null');
  for (const error of answer.errors ?? []) {
    assert.ok(nullPaths.has(JSON.stringify(error.path.slice(0, 5))), `an error off a missing item: ${JSON.stringify(error)}`);
  }
});

// itemIds are the distinct ids of an _entities request's Item
// representations (the router sends an id once however many
// entries name it), sorted; distinct those of a list of ids.
const distinct = (ids) => [...new Set(ids)].sort((a, b) => a - b);
const itemIds = (request) => distinct(request.representations.filter((r) => r.__typename === 'Item').map((r) => r.id));

// batches reads the gateway's /metrics: how many loader batches it has
// run per kind of record (loader_batch_keys' count).
async function batches() {
  const text = await fetch(`${gateway.url}/metrics`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.text());
  const out = {};
  for (const [, kind, n] of text.matchAll(/^loader_batch_keys_count\{kind="([^"]+)"\} (\d+)$/gm)) out[kind] = Number(n);
  return out;
}

test('the catalogue is asked once per query plan step, whatever the number of entries', bounded, async () => {
  // Items only: the plan is the inventory, then one _entities step at the
  // catalogue for every entry of every player, which the gateway loads in
  // one batch. (Each of these queries is new to the gateway, so its
  // response cache cannot answer it.)
  const itemsOnly = 'query($first: Int) { players(first: $first) { inventory { item { name } } } }';
  for (const first of [1, 5, 20]) {
    proxy.reset();
    const batchesBefore = await batches();
    const answer = await post(router.url, itemsOnly, { first });
    assert.equal(answer.data.players.length, first);
    const entries = players(first).flatMap((p) => p.inventory);
    const requests = proxy.entitiesRequests();
    assert.equal(requests.length, 1, `${first} players, ${entries.length} entries: ${JSON.stringify(requests)}`);
    assert.deepEqual(itemIds(requests[0]), distinct(entries.map((e) => e.itemId)), 'every entry in that one request');
    assert.equal(proxy.requests.length, 1, 'and nothing else asked of the catalogue');
    const batchesAfter = await batches();
    assert.equal((batchesAfter.item ?? 0) - (batchesBefore.item ?? 0), 1, `${entries.length} items in one loader batch`);
  }

  // Items and monsters: still one plan step after the inventory (both
  // fetches depend only on it), so the count does not grow with the
  // players either.
  const both = {};
  for (const first of [1, 20]) {
    proxy.reset();
    await post(router.url, crossQuery, { first });
    both[first] = proxy.entitiesRequests().length;
    assert.ok(both[first] >= 1 && both[first] <= 2, `one request per fetch at most: ${both[first]}`);
    assert.equal(proxy.requests.length, both[first], 'only _entities asked of the catalogue');
  }
  assert.equal(both[1], both[20], 'the same requests for 1 player as for 20');
});

test('a plan that goes from the catalogue to the inventory and back asks the catalogue once a step', bounded, async () => {
  // The item most players carry: the catalogue's root field, then the
  // inventory's heldBy, then the holders' items from the catalogue again.
  const data = players(20);
  const holders = new Map();
  for (const p of data) for (const e of p.inventory) holders.set(e.itemId, [...(holders.get(e.itemId) ?? []), p]);
  const [id, held] = [...holders].filter(([i]) => i !== missingItemId).sort((a, b) => b[1].length - a[1].length)[0];
  assert.ok(held.length >= 2, `item ${id} is held by ${held.length} players`);

  proxy.reset();
  const batchesBefore = await batches();
  const answer = await post(router.url, `query($id: Int!) {
    item(id: $id) { name heldBy { id inventory { quantity item { id name } } } }
  }`, { id });
  const batchesAfter = await batches();
  assert.deepEqual(answer.data.item.heldBy.map((p) => p.id), held.map((p) => p.id));

  const entryIds = [...new Set(held.flatMap((p) => p.inventory.map((e) => e.itemId)))];
  const items = await byIds('item', entryIds, '{ id name }');
  assert.equal(answer.data.item.name, items.get(id).name);
  answer.data.item.heldBy.forEach((player, p) => {
    assert.deepEqual(player.inventory.map((e) => e.item), held[p].inventory.map((e) => items.get(e.itemId)));
  });

  // Two steps at the catalogue: the root field, then one _entities for
  // every holder's every entry, loaded in one batch (the root field's
  // item(id:) is one more).
  assert.equal(proxy.requests.length, 2, JSON.stringify(proxy.requests.map((r) => r.query)));
  const entities = proxy.entitiesRequests();
  assert.equal(entities.length, 1);
  assert.deepEqual(itemIds(entities[0]), distinct(held.flatMap((p) => p.inventory.map((e) => e.itemId))));
  assert.ok((batchesAfter.item ?? 0) - (batchesBefore.item ?? 0) <= 2, 'a batch a step at most');
});

test("fields the catalogue alone owns are answered as the catalogue answers them", bounded, async () => {
  const query = '{ item(id: 1) { id name rarity value } monsters(first: 3) { nodes { id name area } } }';
  proxy.reset();
  const viaRouter = await post(router.url, query);
  assert.equal(viaRouter.errors, undefined, JSON.stringify(viaRouter.errors));
  assert.deepEqual(viaRouter.data, await direct(query));
  assert.equal(proxy.entitiesRequests().length, 0, 'a root field, not _entities');
});

// entity edits the block of type name in an SDL with edit(head, body),
// where head is `type Name ... {` and body the rest up to its closing brace.
function entity(sdl, name, edit) {
  const changed = sdl.replace(new RegExp(`(type ${name}\\b[^{]*\\{)([\\s\\S]*?\\n\\})`), (_, head, body) => edit(head, body));
  assert.notEqual(changed, sdl, `the edit of ${name} changed nothing`);
  return changed;
}

test('composition fails when the catalogue changes an entity incompatibly', bounded, async () => {
  const [catalogue, inv] = composed.subgraphs;
  assert.equal(catalogue.name, 'catalogue');
  const check = (sdl) => compose([{ ...catalogue, sdl }, inv]);
  assert.ok(check(catalogue.sdl).supergraphSdl, 'the SDL as served composes');

  const cases = [
    {
      name: "Item's key field changes type",
      sdl: entity(catalogue.sdl, 'Item', (head, body) => head + body.replace(/\n(\s*)id: Int!/, '\n$1id: String!')),
      code: 'FIELD_TYPE_MISMATCH',
      mentions: 'Item.id',
    },
    {
      name: 'Monster is no longer keyed by id',
      sdl: entity(catalogue.sdl, 'Monster', (head, body) => head.replace(/@key\(fields:\s*"id"\)/, '') + body),
      mentions: 'Monster.id',
    },
    {
      name: "Item is keyed by another field than the inventory's",
      sdl: entity(catalogue.sdl, 'Item', (head, body) => head.replace(/@key\(fields:\s*"id"\)/, '@key(fields: "name")') + body),
      mentions: 'Item',
    },
  ];
  for (const c of cases) {
    const result = check(c.sdl);
    assert.equal(result.supergraphSdl, undefined, `${c.name}: composed`);
    assert.ok(result.errors.length > 0, c.name);
    if (c.code) assert.ok(result.errors.some((e) => e.code === c.code), `${c.name}: ${JSON.stringify(result.errors)}`);
    assert.ok(result.errors.some((e) => e.message.includes(c.mentions)), `${c.name}: ${JSON.stringify(result.errors)}`);
  }
});
