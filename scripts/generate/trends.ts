// Trends with a lifecycle: each state has an intensity curve over the window (rise, peak, decay)
// that decides when its articles appear; features are computed from the expected daily counts.
import type { Entity } from './entities';
import { type Rng, WeightedPicker } from './prng';
import { dailyCycle, type Market } from './reference';
import type { Keyword, Theme, Topic } from './vocab';
import { computeFeatures, dayNumber, lifecycleState, utcDay } from '../../shared/trends/features';

export const STATES = ['emerging', 'hot', 'persistent', 'seasonal_dormant', 'decayed'] as const;
export type State = (typeof STATES)[number];
const STATE_SHARE: Record<State, number> = { emerging: 0.15, hot: 0.2, persistent: 0.25, seasonal_dormant: 0.15, decayed: 0.25 };
const STATE_WEIGHT: Record<State, number> = { emerging: 1.5, hot: 3, persistent: 2, seasonal_dormant: 0.8, decayed: 1.5 };

export interface TopicNode {
  id: string;
  themeId: string;
  theme: number;
  topic: Topic;
}
export interface ThemeNode {
  id: string;
  theme: Theme;
}

export interface TrendDef {
  id: string;
  topic: TopicNode;
  state: State;
  structural: string;
  semantic: string | null;
  semanticConfidence: number;
  market: Market;
  scope: string[];
  keyEntities: Entity[];
  keywords: Keyword[];
  weight: number;
  /** Cumulative intensity per window hour, for sampling an article's hour. */
  cumulative: Float64Array;
  startHour: number;
  peakHour: number;
  lastHour: number;
}

function curve(rng: Rng, state: State, H: number): Float64Array {
  const v = new Float64Array(H);
  const u = (a: number, b: number) => rng.uniform(a, b);
  if (state === 'emerging') {
    const s = Math.max(0, H - u(24, 72)),
      rate = u(10, 20);
    for (let i = Math.ceil(s); i < H; i++) v[i] = Math.exp((i - s) / rate);
  } else if (state === 'hot') {
    const s = Math.max(0, H - u(72, 240)),
      p = Math.max(s + 12, H - u(6, 48)),
      tau = u(24, 72);
    for (let i = Math.ceil(s); i < H; i++) v[i] = i <= p ? ((i - s) / (p - s)) ** 2 : Math.exp(-(i - p) / tau);
  } else if (state === 'persistent') {
    const phase = u(0, 2 * Math.PI);
    for (let i = 0; i < H; i++) v[i] = 1 + 0.3 * Math.sin((2 * Math.PI * i) / 168 + phase);
  } else if (state === 'seasonal_dormant') {
    const c = u(0.1, 0.35) * H,
      w = u(24, 60);
    for (let i = 0; i < Math.min(H, c + 3 * w); i++) v[i] = Math.exp(-((i - c) ** 2) / (2 * w * w));
  } else {
    const s = u(0.15, 0.5) * H,
      p = s + u(12, 48),
      tau = u(18, 60);
    for (let i = Math.ceil(s); i < H; i++) v[i] = i <= p ? (i - s) / (p - s) : Math.exp(-(i - p) / tau);
  }
  return v;
}

export interface TrendContext {
  rng: Rng;
  hours: number;
  /** UTC hour of day of window hour 0. */
  startUtcHour: number;
  markets: Market[];
  topics: TopicNode[];
  entitiesByTopic: Entity[][];
}

export function buildTrends(ctx: TrendContext, count: number): TrendDef[] {
  const { rng, hours: H } = ctx;
  // Exact state mix (shuffled), so every dataset shows each lifecycle state in proportion.
  const states = STATES.flatMap((st) => Array.from({ length: Math.round(STATE_SHARE[st] * count) }, () => st));
  while (states.length < count) states.push('persistent');
  const mix = rng.sample(states, count);
  const marketPicker = new WeightedPicker(ctx.markets, (m) => m.weight);
  const countries = [...new Set(ctx.markets.map((m) => m.country))];
  const out: TrendDef[] = [];
  for (let n = 0; n < count; n++) {
    const state = mix[n]!;
    const topic = ctx.topics[n % ctx.topics.length]!;
    const market = marketPicker.pick(rng);
    const raw = curve(rng, state, H);
    let max = 0;
    for (let i = 0; i < H; i++) {
      raw[i] = raw[i]! * dailyCycle(ctx.startUtcHour + i, market.tz);
      max = Math.max(max, raw[i]!);
    }
    const cumulative = new Float64Array(H);
    let sum = 0,
      start = -1,
      peak = 0,
      last = 0;
    for (let i = 0; i < H; i++) {
      const x = raw[i]! < max * 1e-3 ? 0 : raw[i]!;
      sum += x;
      cumulative[i] = sum;
      if (x > 0 && start < 0) start = i;
      if (x > raw[peak]!) peak = i;
      if (x >= max * 0.01) last = i;
    }
    const pool = new WeightedPicker(ctx.entitiesByTopic[ctx.topics.indexOf(topic)] ?? [], (e) => e.weight);
    const keyEntities = pool.items.length ? [...new Set(Array.from({ length: rng.int(2, 4) }, () => pool.pick(rng)))] : [];
    const structural =
      state === 'persistent' ? 'evergreen' : state === 'seasonal_dormant' ? 'cyclic' : rng.chance(0.85) ? 'event_driven' : 'unknown';
    const semantic = rng.chance(0.1)
      ? null
      : structural === 'evergreen'
        ? rng.pick(['evergreen', 'lifestyle'])
        : structural === 'cyclic'
          ? 'seasonal'
          : rng.pick(['news', 'news', 'event_based']);
    out.push({
      id: rng.uuid(),
      topic,
      state,
      structural,
      semantic,
      semanticConfidence: semantic ? rng.uniform(0.5, 0.97) : 0,
      market,
      scope: [
        market.country,
        ...rng.sample(
          countries.filter((c) => c !== market.country),
          rng.int(0, 2),
        ),
      ],
      keyEntities,
      keywords: rng.sample(topic.topic.keywords, rng.int(1, 2)),
      weight: STATE_WEIGHT[state] * Math.min(8, rng.pareto(1, 1.5)),
      cumulative,
      startHour: Math.max(0, start),
      peakHour: peak,
      lastHour: last,
    });
  }
  return out;
}

/** Samples the window hour of one of the trend's articles. */
export function sampleHour(rng: Rng, t: TrendDef): number {
  const c = t.cumulative;
  const x = rng.next() * c[c.length - 1]!;
  let lo = 0,
    hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (c[mid]! > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function trendRole(rng: Rng, t: TrendDef, hour: number): string {
  if (rng.chance(0.06)) return 'F5_one_off';
  // Triggers: the articles of a trend's first hours (a few per trend).
  if (t.state !== 'persistent' && hour - t.startHour < Math.max(6, 0.08 * (t.lastHour - t.startHour)) && rng.chance(0.7)) {
    return 'F1_trigger';
  }
  if (t.state === 'persistent') return rng.chance(0.5) ? 'F2_pile_on' : 'F3_long_tail';
  return hour <= t.peakHour + 12 ? 'F2_pile_on' : 'F3_long_tail';
}

/**
 * The state a trend is published with: the lifecycle rule (shared/trends/features.ts) applied to
 * the features of its expected articles (the intensity curve scaled to `expectedTotal`), as the API
 * computes them from the real ones at `now`. So the state a line carries agrees with the features.
 */
export function publishedState(t: TrendDef, expectedTotal: number, windowStart: number, now: number): State {
  const c = t.cumulative;
  const H = c.length;
  const total = c[H - 1]! || 1;
  const perDay = new Map<string, number>();
  let first48h = 0;
  for (let i = 0; i < H; i++) {
    const x = ((c[i]! - (i > 0 ? c[i - 1]! : 0)) / total) * expectedTotal;
    const day = utcDay(new Date(windowStart + i * 3_600_000));
    perDay.set(day, (perDay.get(day) ?? 0) + x);
    if (i - t.startHour < 48) first48h += x;
  }
  // Expected (fractional) counts: the shape decides the state, not the sampling noise of small trends.
  const days = [...perDay].map(([day, x]) => ({ day, articles: x })).filter((d) => d.articles > 0);
  const totalArticles = days.reduce((a, d) => a + d.articles, 0);
  const today = utcDay(new Date(now));
  const features = computeFeatures({ days, today, totalArticles, first48h });
  const firstDay = days.length ? Math.min(...days.map((d) => dayNumber(d.day))) : dayNumber(today);
  return lifecycleState(features, t.structural, dayNumber(today) - firstDay);
}
