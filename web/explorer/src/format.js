// Number and text formats of the explorer. Locale is fixed so that a page
// reads the same for everyone (and in tests).

import { h } from './dom.js';

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
