// Where an item comes from and what it goes into, as its page shows them,
// and a world boss's battle by the clock: kept apart from the DOM so that
// `npm test` runs it in Node.

import { bossTiming } from './drops.js';

// The explorer's clock: the browser's, unless a page set
// `window.explorerNow` (an ISO time, or milliseconds since 1970) before
// the explorer loaded, as tests do; time then runs on from that moment.
// Only what the page shows reads it: the gateway's answers never depend
// on a clock.
const start = globalThis.explorerNow;
const startAt = typeof start === 'number' ? start : typeof start === 'string' ? Date.parse(start) : NaN;
const offset = Number.isFinite(startAt) ? startAt - Date.now() : 0;
export const clockNow = () => Date.now() + offset;

// battleState is what a world boss's battle is by its times against now:
// 'upcoming', 'active' or 'ended'; null without both times. The game's
// own `status` is its word as of its last update, which may be days old.
const BY_TIMING = { before: 'upcoming', during: 'active', after: 'ended' };
export function battleState(startsAt, endsAt, now = clockNow()) {
  return BY_TIMING[bossTiming(startsAt, endsAt, now)] ?? null;
}

// gameDisagrees reports whether the game's status word says otherwise
// than the times (an "active" battle that ended): "defeated" agrees with
// an ended one.
export function gameDisagrees(state, status) {
  if (!state || !status) return false;
  const s = String(status).toLowerCase();
  return !(s === state || (state === 'ended' && s === 'defeated'));
}

// chestSources is an item's chests, each once: the upstream lists a chest
// both under `foundInChests` (with an amount range) and `eventDrops` (an
// amount), so they are joined on the chest (its id, or its name when it
// has none), in the order first met, foundInChests first.
export function chestSources(it) {
  const byKey = new Map();
  const add = (c, min, max) => {
    const key = c.chestId != null ? `id:${c.chestId}` : `name:${c.chestName ?? c.chest?.name}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.chanceText ||= c.chanceText;
      seen.chest ??= c.chest;
      return;
    }
    byKey.set(key, { chestId: c.chestId, chestName: c.chestName ?? c.chest?.name, chest: c.chest ?? null, min, max, chanceText: c.chanceText ?? '', chancePercentage: c.chancePercentage });
  };
  for (const c of it.foundInChests ?? []) add(c, c.minAmount, c.maxAmount);
  for (const c of it.eventDrops ?? []) add(c, c.amount, c.amount);
  return [...byKey.values()];
}

// bossDrops is an item's world boss drops: each boss that drops it, with
// the loot entry of the item's name (its quantity and chance).
export function bossDrops(it) {
  return (it.droppedByWorldBosses ?? []).map((boss) => {
    const loot = (boss.loot ?? []).find((l) => l.name === it.name) ?? {};
    return { boss, quantity: loot.quantity ?? null, chance: loot.chance ?? null };
  });
}

// limitedText reads the upstream's `limited` number (its meaning is not
// given upstream; the game sets it on its event items): "Yes" or "No",
// null when absent.
export function limitedText(limited) {
  if (limited == null) return null;
  const v = Number(limited);
  if (!Number.isFinite(v) || v === 0) return 'No';
  return v === 1 ? 'Yes' : `Yes (${v})`;
}

// counted is a recipe's materials with an amount each: the upstream gives
// cooking's none, so an ingredient counts once for each time it is
// listed; materials with amounts are summed the same way. One entry per
// item (by id, or name without one), in the order first listed.
export function counted(materials) {
  const byKey = new Map();
  for (const m of materials ?? []) {
    const key = m.itemId != null ? `id:${m.itemId}` : `name:${m.name ?? m.itemName}`;
    const n = m.amount != null && Number.isFinite(Number(m.amount)) ? Number(m.amount) : 1;
    const seen = byKey.get(key);
    if (seen) seen.amount += n;
    else byKey.set(key, { ...m, amount: n });
  }
  return [...byKey.values()];
}

// usedIn is what an item goes into, each recipe once: its cooking,
// fletching, farming and forestry records, then the items it is an
// ingredient of, leaving out an item a cooking or fletching recipe
// already listed makes (`ingredientOf` names the recipe's product). Each
// entry is { kind, field, record } (field: the list the record is of,
// 'items' for an ingredient's product).
export function usedIn(it) {
  const out = [];
  const made = new Set();
  const u = it.usedIn ?? {};
  for (const x of u.cooking ?? []) {
    if (!x.cooking) continue;
    out.push({ kind: 'Cooking', field: 'cookingRecipes', record: x.cooking });
    if (x.cooking.itemId != null) made.add(x.cooking.itemId);
  }
  for (const x of u.fletching ?? []) {
    if (!x.fletching) continue;
    out.push({ kind: 'Fletching', field: 'fletchingRecipes', record: x.fletching });
    if (x.fletching.itemId != null) made.add(x.fletching.itemId);
  }
  for (const x of u.farming ?? []) if (x.farming) out.push({ kind: 'Farming', field: 'farmingSeeds', record: x.farming });
  for (const x of u.forestry ?? []) if (x.forestry) out.push({ kind: 'Forestry', field: 'forestryTrees', record: x.forestry });
  const seen = new Set();
  for (const other of it.ingredientOf ?? []) {
    if (seen.has(other.id) || made.has(other.id)) continue;
    seen.add(other.id);
    out.push({ kind: 'Ingredient of', field: 'items', record: other });
  }
  return out;
}

// bestSource is where the item is most likely got, as the infobox's
// "Obtained from" names it: the monster or world boss drop of the highest
// chance (a monster first among equals), else the chest of the highest
// chance; null for none. { kind: 'monster' | 'boss' | 'chest', drop, chance }.
export function bestSource(it) {
  let best = null;
  const consider = (kind, drop, c) => {
    const v = c == null ? NaN : Number(c);
    if (!Number.isFinite(v)) return;
    if (best == null || v > best.chance) best = { kind, drop, chance: v };
  };
  for (const d of it.monsterDrops ?? []) consider('monster', d, d.baseChance);
  for (const d of bossDrops(it)) consider('boss', d, d.chance);
  if (best) return best;
  for (const c of chestSources(it)) consider('chest', c, c.chancePercentage);
  return best;
}
