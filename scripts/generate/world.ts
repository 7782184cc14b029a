// Everything that exists before the articles: geography, publishers, entities, the theme/topic
// hierarchy, trends and their genealogy. Small at every scale, so it is built in memory.
import { buildEntities, entityRecord, type Entity } from './entities';
import { type Rng, WeightedPicker } from './prng';
import { buildPublishers, PublisherChooser, publisherRecord, type Publisher } from './publishers';
import { COUNTRIES, LANGUAGES, MARKETS, type Market } from './reference';
import type { Scale } from './scales';
import { buildTrends, publishedState, type ThemeNode, type TopicNode, type TrendDef } from './trends';
import { keywordIn, THEMES } from './vocab';

export const HOUR = 3_600_000;
/** ISO 8601 with an explicit +00:00 offset, second precision. */
export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

export interface Edge {
  parent: TrendDef;
  child: TrendDef;
  relation: string;
  strength: number;
  establishedAt: number;
}

export interface World {
  scale: Scale;
  now: number;
  windowStart: number;
  hours: number;
  markets: Market[];
  themes: ThemeNode[];
  topics: TopicNode[];
  entitiesByTopic: Entity[][];
  entities: Entity[];
  publishers: Publisher[];
  chooser: PublisherChooser;
  trends: TrendDef[];
  trendPicker: WeightedPicker<TrendDef>;
  edges: Edge[];
}

export function buildWorld(rng: Rng, scale: Scale, now: number): World {
  const hours = scale.days * 24;
  const windowStart = now - hours * HOUR;
  const markets = scale.markets.map((c) => MARKETS[c]!);
  const themes = THEMES.slice(0, scale.themes).map((theme) => ({ id: rng.uuid(), theme }));
  const topics: TopicNode[] = themes.flatMap((t, ti) =>
    t.theme.topics.slice(0, scale.topicsPerTheme).map((topic) => ({ id: rng.uuid(), themeId: t.id, theme: ti, topic })),
  );
  const entities = buildEntities(
    rng,
    topics.map((t) => t.topic),
    scale.entities,
  );
  const entitiesByTopic = topics.map((_, i) => entities.filter((e) => e.topic === i));
  const publishers = buildPublishers(rng, scale.markets, scale.publishers, themes.length);
  const trends = buildTrends(
    { rng, hours, startUtcHour: new Date(windowStart).getUTCHours(), markets, topics, entitiesByTopic },
    scale.trends,
  );
  const edges: Edge[] = [];
  const byStart = [...trends].sort((a, b) => a.startHour - b.startHour);
  byStart.forEach((child, i) => {
    const earlier = byStart.slice(0, i).filter((p) => p.startHour < child.startHour);
    const sameTopic = earlier.filter((p) => p.topic === child.topic);
    const pool = sameTopic.length && rng.chance(0.8) ? sameTopic : earlier.filter((p) => p.topic.theme === child.topic.theme);
    if (!pool.length || !rng.chance(0.45)) return;
    const parent = rng.pick(pool);
    if (rng.chance(0.5) && child.structural !== 'evergreen') child.structural = 'derivative';
    const at = windowStart + (Math.max(child.startHour, parent.startHour) + rng.uniform(6, 48)) * HOUR;
    edges.push({
      parent,
      child,
      relation: rng.pick(['spin_off', 'continuation', 'escalation', 'merge', 'related']),
      strength: Math.round(rng.uniform(0.3, 0.95) * 100) / 100,
      establishedAt: Math.min(now - HOUR, at),
    });
  });
  return {
    scale,
    now,
    windowStart,
    hours,
    markets,
    themes,
    topics,
    entitiesByTopic,
    entities,
    publishers,
    chooser: new PublisherChooser(publishers),
    trends,
    trendPicker: new WeightedPicker(trends, (t) => t.weight),
    edges,
  };
}

function* geoRecords(rng: Rng, world: World): Generator<Record<string, unknown>> {
  for (const [code, name] of Object.entries(LANGUAGES)) yield { type: 'language', code, name };
  for (const { cities, ...c } of COUNTRIES) yield { type: 'country', ...c };
  for (const c of COUNTRIES) for (const name of c.cities) yield { type: 'city', country: c.alpha_2, name };
  for (const c of COUNTRIES) {
    const langs = world.markets.filter((m) => m.country === c.alpha_2).map((m) => m.language);
    const dormant = world.scale.dormantCountries.includes(c.alpha_2);
    if (!langs.length && !dormant) continue;
    if (langs.length) yield { type: 'discover_profile', country: c.alpha_2, city: null, language: langs[0], is_active: true };
    for (const city of c.cities) {
      for (const language of langs.length ? langs : [c.languages[0]]) {
        yield { type: 'discover_profile', country: c.alpha_2, city, language, is_active: !dormant && !rng.chance(0.15) };
      }
    }
  }
}

/** Expected articles of a trend: its weight's share of the trend articles of the scale. */
const expectedArticles = (world: World, t: TrendDef) => (world.scale.urls * world.scale.trendShare * t.weight) / world.trendPicker.total;
const stateOf = (world: World, t: TrendDef) => publishedState(t, expectedArticles(world, t), world.windowStart, world.now);

// peak_date, article_count, first/last timestamps and features are derived by ingest and the API
// from the trend_article lines; a trend line carries only what describes the trend.
function trendRecord(rng: Rng, world: World, t: TrendDef): Record<string, unknown> {
  const country = COUNTRIES.find((c) => c.alpha_2 === t.market.country)!;
  const kw = t.keywords[0]!;
  const e1 = t.keyEntities[0]?.name ?? t.topic.topic.label;
  const e2 = t.keyEntities[1]?.name ?? country.name;
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const label = rng.pick([`${e1}: ${kw[0]}`, `${cap(kw[0])} in ${country.name}`, `${e1} ${kw[0]} row`, `${e1} and ${e2}: ${kw[0]}`]);
  const local = t.market.language !== 'en';
  const peakMs = world.windowStart + t.peakHour * HOUR;
  const persistent = t.state === 'persistent';
  return {
    type: 'trend',
    id: t.id,
    label,
    label_en: label,
    label_ru: `${e1}: ${keywordIn(kw, 'ru')}`,
    summary: `Coverage of ${kw[0]} involving ${e1} and ${e2}, centred on ${country.name}.`,
    label_local: local ? `${e1}: ${keywordIn(kw, t.market.language)}` : null,
    label_local_lang: local ? t.market.language : null,
    state: stateOf(world, t),
    structural_type: t.structural,
    semantic_type: t.semantic,
    semantic_type_confidence: Math.round(t.semanticConfidence * 100) / 100,
    topic_id: t.topic.id,
    primary_country: t.market.country,
    country_scope: t.scope,
    key_entities: t.keyEntities.map((e) => e.name),
    key_topics: t.keywords.map((k) => k[0]),
    expected_next_peak: t.structural === 'cyclic' ? iso(peakMs + rng.int(180, 365) * 24 * HOUR).slice(0, 10) : null,
    created_at: iso(persistent ? world.windowStart - rng.int(10, 200) * 24 * HOUR : world.windowStart + t.startHour * HOUR),
    updated_at: iso(Math.min(world.now, world.windowStart + (t.lastHour + 1) * HOUR)),
  };
}

/** Every line that precedes the articles, in dependency order. */
export function* worldRecords(rng: Rng, world: World): Generator<Record<string, unknown>> {
  yield* geoRecords(rng, world);
  for (const p of world.publishers) yield publisherRecord(p);
  for (const e of world.entities) yield entityRecord(e);
  const dominant = new Map<string, string>();
  for (const topic of world.topics) {
    const states = world.trends.filter((t) => t.topic === topic).map((t) => stateOf(world, t));
    const top = [...new Set(states)].sort((a, b) => states.filter((s) => s === b).length - states.filter((s) => s === a).length)[0];
    if (top) dominant.set(topic.id, top);
  }
  for (const { id, theme } of world.themes) {
    yield {
      type: 'hierarchy_node',
      id,
      level: 2,
      label: theme.label,
      label_en: theme.label,
      label_ru: theme.labelRu,
      summary: `Themes around ${theme.topics.map((t) => t.label.toLowerCase()).join(', ')}.`,
      parent_id: null,
      state: null,
    };
  }
  for (const { id, themeId, topic } of world.topics) {
    yield {
      type: 'hierarchy_node',
      id,
      level: 1,
      label: topic.label,
      label_en: topic.label,
      label_ru: topic.labelRu,
      summary: `Stories on ${topic.keywords.map((k) => k[0]).join(', ')}.`,
      parent_id: themeId,
      state: dominant.get(id) ?? null,
    };
  }
  for (const t of world.trends) yield trendRecord(rng, world, t);
  for (const e of world.edges) {
    yield {
      type: 'trend_edge',
      parent_id: e.parent.id,
      child_id: e.child.id,
      relation_type: e.relation,
      strength: e.strength,
      established_at: iso(e.establishedAt),
    };
  }
}
