// The inventory service: a small federation v2 subgraph, as a game's
// player service would be, built with @apollo/subgraph. It holds players,
// their inventories as { itemId, quantity } and their bestiaries as
// { monsterId, kills }, and knows nothing else of items or monsters: it
// names them by id, and the supergraph asks the catalogue for the rest.
// It adds one field to the catalogue's Item, heldBy, so that a query can
// go from the catalogue to the inventory and back.

import { createServer } from 'node:http';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { graphql, parse } from 'graphql';

export const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

  type Query {
    "The players, in id order; the first \`first\` of them when it is given."
    players(first: Int): [Player!]!
    "The player with this id, or null."
    player(id: ID!): Player
  }

  "A player of the game."
  type Player @key(fields: "id") {
    id: ID!
    name: String!
    "What the player carries, one entry per item."
    inventory: [InventoryEntry!]!
    "The monsters the player has killed, one entry per monster."
    bestiary: [BestiaryEntry!]!
  }

  "An item a player carries, and how many of it."
  type InventoryEntry {
    quantity: Int!
    "The catalogue's item; null when the catalogue has no item of this id."
    item: Item
  }

  "A monster a player has killed, and how many times."
  type BestiaryEntry {
    kills: Int!
    monster: Monster
  }

  "An item of the catalogue, known here by its id, with who carries it."
  type Item @key(fields: "id") {
    id: Int!
    "The players carrying this item, in id order."
    heldBy: [Player!]!
  }

  "A monster of the catalogue, named here by its id only."
  type Monster @key(fields: "id", resolvable: false) {
    id: Int!
  }
`);

// An id no item of the catalogue has: the first player carries it, so
// that a supergraph shows what a missing record becomes.
export const missingItemId = 999_999;

// players makes count players, the same every time: player p carries 8
// items and has killed 5 kinds of monster, spread over the catalogue's
// ids (items 1..1000, monsters 1..150); the first item is one of four
// that every fourth player shares.
export function players(count = 20) {
  return Array.from({ length: count }, (_, i) => {
    const p = i + 1;
    const inventory = Array.from({ length: 8 }, (_, k) => ({
      itemId: k === 0 ? (p % 4) * 5 + 1 : ((p * 37 + k * 101) % 1000) + 1,
      quantity: ((p + k) % 5) + 1,
    }));
    if (p === 1) inventory.push({ itemId: missingItemId, quantity: 1 });
    const bestiary = Array.from({ length: 5 }, (_, k) => ({
      monsterId: ((p * 7 + k * 13) % 150) + 1,
      kills: (p * (k + 1)) % 40 + 1,
    }));
    return { id: String(p), name: `player-${p}`, inventory, bestiary };
  });
}

export function buildSchema(data = players()) {
  const byId = new Map(data.map((p) => [p.id, p]));
  const holders = new Map();
  for (const p of data) {
    for (const { itemId } of p.inventory) {
      if (!holders.has(itemId)) holders.set(itemId, []);
      holders.get(itemId).push(p);
    }
  }
  return buildSubgraphSchema({
    typeDefs,
    resolvers: {
      Query: {
        players: (_, { first }) => (first == null ? data : data.slice(0, Math.max(0, first))),
        player: (_, { id }) => byId.get(id) ?? null,
      },
      Player: {
        __resolveReference: ({ id }) => byId.get(id) ?? null,
      },
      Item: {
        __resolveReference: ({ id }) => ({ id }),
        heldBy: ({ id }) => holders.get(id) ?? [],
      },
      InventoryEntry: {
        item: ({ itemId }) => ({ __typename: 'Item', id: itemId }),
      },
      BestiaryEntry: {
        monster: ({ monsterId }) => ({ __typename: 'Monster', id: monsterId }),
      },
    },
  });
}

// startInventory serves the subgraph at /graphql on 127.0.0.1 (port 0: a
// free one), POST with a JSON body only, as routers send.
export async function startInventory({ port = 0, data } = {}) {
  const schema = buildSchema(data);
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/graphql') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"POST /graphql"}');
      return;
    }
    let request;
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      request = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"errors":[{"message":"not JSON"}]}');
      return;
    }
    const result = await graphql({
      schema,
      source: request.query,
      variableValues: request.variables,
      operationName: request.operationName,
    });
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(result));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}/graphql`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
