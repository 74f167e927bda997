// The arithmetic of drop tables, kept apart from the DOM so that `npm test`
// runs it in Node: the order of a table's rows, the coins a kill is worth,
// a world boss's status against its times.
//
// Chances are percentages. The catalogue does not say (its service notes
// leave "fraction or percent" open), but its data does: "Always" drops
// carry baseChance 100, and no chance is above 100. So 54 means 54 %, and
// 0.137 means 0.137 % (about 1 in 730), never 13.7 %.

// sortRows orders rows by the value key(row) gives, a number or a string
// (null or '' last, whatever the direction), highest first when desc. The
// sort is stable: rows that tie keep their order.
export function sortRows(rows, key, desc) {
  const keyed = rows.map((row, i) => ({ row, i, k: key(row) }));
  keyed.sort((a, b) => {
    const an = a.k == null || a.k === '' || (typeof a.k === 'number' && Number.isNaN(a.k));
    const bn = b.k == null || b.k === '' || (typeof b.k === 'number' && Number.isNaN(b.k));
    if (an || bn) return an === bn ? a.i - b.i : an ? 1 : -1;
    let c = typeof a.k === 'number' && typeof b.k === 'number' ? a.k - b.k : String(a.k).localeCompare(String(b.k), 'en');
    if (desc) c = -c;
    return c || a.i - b.i;
  });
  return keyed.map((x) => x.row);
}

// meanAmount is the amount a drop gives on average when it drops: the
// middle of min..max (either alone when the other is missing), 1 when
// neither is known.
export function meanAmount(min, max) {
  const lo = min == null ? null : Number(min);
  const hi = max == null ? null : Number(max);
  if (lo == null && hi == null) return 1;
  if (lo == null || hi == null) return lo ?? hi;
  return (lo + hi) / 2;
}

// expectedCoins is what one kill yields of a drop in coins, on average:
// chance (a percentage, see above) / 100 × the mean amount × the item's
// value. Null when the chance or the value is unknown.
export function expectedCoins(chancePercent, value, min, max) {
  const c = Number(chancePercent);
  const v = Number(value);
  if (chancePercent == null || value == null || !Number.isFinite(c) || !Number.isFinite(v)) return null;
  return (c / 100) * meanAmount(min, max) * v;
}

// The drop rarities of the catalogue, commonest first: their rank sorts a
// "Drop rarity" column by meaning rather than by spelling.
const DROP_RARITIES = ['always', 'common', 'uncommon', 'rare', 'very rare'];

export function dropRarityRank(rarity) {
  if (!rarity) return null;
  const i = DROP_RARITIES.indexOf(String(rarity).toLowerCase());
  return i < 0 ? DROP_RARITIES.length : i;
}

// bossTiming says where now stands against a battle's start and end:
// 'before', 'during' or 'after' (null without both times).
export function bossTiming(startsAt, endsAt, now = Date.now()) {
  const s = Date.parse(startsAt);
  const e = Date.parse(endsAt);
  if (!Number.isFinite(s) || !Number.isFinite(e)) return null;
  if (now < s) return 'before';
  if (now < e) return 'during';
  return 'after';
}

// bestDrop is the drop of the highest chance (the first of equals), as an
// infobox's "obtained from" names it; null for none.
export function bestDrop(drops) {
  let best = null;
  for (const d of drops ?? []) {
    if (d?.baseChance == null || !Number.isFinite(Number(d.baseChance))) continue;
    if (best == null || Number(d.baseChance) > Number(best.baseChance)) best = d;
  }
  return best;
}

// hiddenColumnsText names the columns a phone leaves out of a drop table,
// for the button that shows them: "Amount, With luck and Drop rarity".
export function hiddenColumnsText(labels) {
  if (labels.length <= 1) return labels.join('');
  return `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}
