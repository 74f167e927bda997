// Number and text formats of the explorer. Locale is fixed so that a page
// reads the same for everyone (and in tests).

import { h } from './dom.js';
import { battleState, clockNow, gameDisagrees } from './sources.js';

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const precise = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

export function num(n) {
  if (n == null || !Number.isFinite(Number(n))) return '—';
  return decimal.format(Number(n));
}

// A drop chance. The catalogue's chances are percentages (100 means
// every time; the upstream's "Always" drops say 100), written as the
// upstream wrote them.
export function chance(c) {
  if (c == null || !Number.isFinite(Number(c))) return '—';
  const v = Number(c);
  return `${v >= 1 ? decimal.format(v) : precise.format(v)}%`;
}

// "1 in N" for a percentage chance below 100.
export function oneIn(c) {
  const v = Number(c);
  if (!Number.isFinite(v) || v <= 0 || v >= 100) return '';
  return `1 in ${whole.format(Math.round(100 / v))}`;
}

// A chance cell: the percentage, and "1 in N" under it.
export function chanceCell(c) {
  const odds = oneIn(c);
  return [h('span', { class: 'chance' }, chance(c)), odds ? h('span', { class: 'odds' }, odds) : null];
}

export function amount(min, max) {
  if (min == null && max == null) return '—';
  if (min == null || max == null || Number(min) === Number(max)) return num(min ?? max);
  return `${num(min)}–${num(max)}`;
}

export function rarityBadge(rarity) {
  if (!rarity) return null;
  const slug = String(rarity).toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return h('span', { class: `badge rarity rarity-${slug}` }, rarity);
}

export function plural(n, one, many) {
  return `${whole.format(n)} ${n === 1 ? one : many}`;
}

// A duration given in seconds, as "1 h 5 min" or "45 s".
export function duration(seconds) {
  const s = Number(seconds);
  if (!Number.isFinite(s)) return '—';
  if (s < 60) return `${decimal.format(s)} s`;
  const parts = [];
  let rest = Math.round(s);
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['min', 60], ['s', 1]]) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join(' ');
}

// A moment of the catalogue (an ISO timestamp), in the viewer's own time
// zone, with the zone's name so that nobody has to guess.
const when = new Intl.DateTimeFormat('en-US', {
  weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short',
});
const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });

export function localTime(iso) {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? when.format(t) : String(iso ?? '—');
}

// "in 3 hours", "20 minutes ago", from now.
export function fromNow(iso, now = clockNow()) {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const diff = (t - now) / 1000;
  for (const [unit, size] of [['day', 86400], ['hour', 3600], ['minute', 60]]) {
    if (Math.abs(diff) >= size) return relative.format(Math.round(diff / size), unit);
  }
  return relative.format(Math.round(diff), 'second');
}

// A <time> of a timestamp: local time, and how far from now (kept up to
// date by main.js, which refreshes every [data-from-now] each minute).
export function timeCell(iso) {
  return h(
    'time',
    { datetime: iso, class: 'when' },
    localTime(iso),
    h('span', { class: 'sub', 'data-from-now': iso }, fromNow(iso)),
  );
}

// A world boss's battle as its times say against the explorer's clock
// (sources.js): upcoming, active or ended; the game's own status word
// (as of its last update, which may be days old) beside it when it says
// otherwise. refreshBattles redraws it as time passes.
export function battleBadge(b, now = clockNow()) {
  const state = battleState(b.battleStartsAt, b.battleEndsAt, now);
  return h(
    'span',
    { class: 'battle-state', 'data-starts': b.battleStartsAt, 'data-ends': b.battleEndsAt, 'data-status': b.status ?? '' },
    statusBadge(state ?? b.status),
    gameDisagrees(state, b.status) ? h('span', { class: 'sub', 'data-testid': 'game-status' }, `the game says ${b.status}`) : null,
  );
}

export function refreshBattles(root, now = clockNow()) {
  for (const el of root.querySelectorAll('.battle-state')) {
    const d = el.dataset;
    el.replaceWith(battleBadge({ battleStartsAt: d.starts, battleEndsAt: d.ends, status: d.status || null }, now));
  }
}

export function statusBadge(status) {
  if (!status) return null;
  const slug = String(status).toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return h('span', { class: `badge status status-${slug}`, 'data-testid': 'boss-status' }, status);
}
