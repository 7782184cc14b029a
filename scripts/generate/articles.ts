// One URL at a time: the article line, then its hourly observations in every market it reached,
// then its trend assignment. Streaming-friendly: nothing per URL outlives the call.
import type { Entity } from './entities';
import { type Rng, WeightedPicker } from './prng';
import { COUNTRIES, dailyCycle, type Market } from './reference';
import { sentencePair, titles, type Slots } from './templates';
import { sampleHour, trendRole, type TrendDef } from './trends';
import { keywordIn } from './vocab';
import { HOUR, iso, type World } from './world';

export interface Stats {
  articles: number;
  observations: number;
  profiles: number;
  trendArticles: number;
}

const PLACES = COUNTRIES.flatMap((c) => c.cities);

/** Observation lines are the bulk of the output: build them as strings, no JSON.stringify. */
function observationLine(urlId: string, m: Market, hourIso: string, impressions: number, position: number): string {
  return `{"type":"observation","url_id":"${urlId}","country":"${m.country}","language":"${m.language}","hour":"${hourIso}","impressions":${impressions},"position":${position}}`;
}

export class ArticleFactory {
  private readonly marketPicker: WeightedPicker<Market>;
  private readonly topicPicker: WeightedPicker<number>;
  private readonly hourIso: string[];
  private readonly maxWeight: number;
  private readonly entityPickers: WeightedPicker<Entity>[];
  private readonly startUtc: number;

  /** `ids`: a stream of its own, so the n-th article has the same id for any `--now` (shared/schemas/demo-ids.ts names the first). */
  constructor(
    private readonly world: World,
    private readonly rng: Rng,
    private readonly ids: Rng,
  ) {
    this.marketPicker = new WeightedPicker(world.markets, (m) => m.weight);
    this.topicPicker = new WeightedPicker(
      world.topics.map((_, i) => i),
      () => 1,
    );
    this.hourIso = Array.from({ length: world.hours }, (_, i) => iso(world.windowStart + i * HOUR));
    this.maxWeight = Math.max(...world.markets.map((m) => m.weight));
    this.entityPickers = world.entitiesByTopic.map((pool) => new WeightedPicker(pool, (e) => e.weight));
    this.startUtc = new Date(world.windowStart).getUTCHours();
  }

  /** A non-trend article's hour: uniform over the window, thinned by the market's daily cycle. */
  private organicHour(m: Market): number {
    for (;;) {
      const h = this.rng.int(0, this.world.hours - 1);
      if (this.rng.next() < dailyCycle(this.startUtc + h, m.tz)) return h;
    }
  }

  emit(out: (line: string) => void, stats: Stats): void {
    const { rng, world } = this;
    const trend: TrendDef | null = rng.chance(world.scale.trendShare) && world.trends.length ? world.trendPicker.pick(rng) : null;
    const topicIndex = trend ? world.topics.indexOf(trend.topic) : this.topicPicker.pick(rng);
    const topic = world.topics[topicIndex]!;
    let market = this.marketPicker.pick(rng);
    if (trend) {
      const country = rng.chance(0.6) ? trend.market.country : rng.pick(trend.scope);
      market = rng.pick(world.markets.filter((m) => m.country === country));
    }
    const publisher = world.chooser.choose(rng, market, topic.theme);
    if (!publisher) return;
    const hour = trend ? sampleHour(rng, trend) : this.organicHour(market);
    const t0 = world.windowStart + hour * HOUR + rng.int(0, 59) * 60_000;

    const picker = this.entityPickers[topicIndex]!;
    const mentioned = new Set<Entity>(trend ? trend.keyEntities.slice(0, rng.int(1, trend.keyEntities.length)) : []);
    for (let n = rng.int(1, 3); n > 0 && picker.items.length; n--) mentioned.add(picker.pick(rng));
    const ents = [...mentioned];
    const keywords = rng.sample([...new Set(trend ? [...trend.keywords, ...topic.topic.keywords] : topic.topic.keywords)], 2);
    const lang = publisher.market.language;
    const slots = (l: string): Slots => ({
      E: ents[0]?.name ?? topic.topic.label,
      E2: ents[1]?.name ?? publisher.name,
      K: keywordIn(keywords[0]!, l),
      K2: keywordIn(keywords[1] ?? keywords[0]!, l),
      P: rng.pick(PLACES),
      weekday: new Date(t0).getUTCDay(),
    });
    const local = slots(lang);
    const en = lang === 'en' ? local : { ...slots('en'), P: local.P };
    const { title: titleLocal, titleEn } = titles(rng, lang, local, en);
    const { text: summary, textEn: summaryEn } = sentencePair(rng, lang, local, en, 1);
    const body = sentencePair(rng, lang, local, en, rng.int(...world.scale.bodySentences)).text;

    // Reach: the primary market plus same-language markets (popular articles travel further).
    const potential = Math.min(5_000_000, rng.pareto(200, 1.15) * Math.sqrt(publisher.size));
    const popularity = Math.min(1, Math.max(0, Math.log10(potential / 200) / 3));
    const reached: Market[] = [market];
    for (const m of world.markets) {
      if (m === market) continue;
      const p =
        m.language === lang ? world.scale.sameLanguageReach * (0.4 + 0.6 * popularity) : world.scale.crossLanguageReach * popularity;
      if (rng.chance(p)) reached.push(m);
    }
    const lifespan = Math.min(
      240,
      Math.max(2, rng.logNormal(world.scale.lifespanMedianHours, world.scale.lifespanSigma) * (trend ? 1.3 : 1)),
    );
    const id = this.ids.uuid();
    let lastHour = hour;
    const obs: string[] = [];
    for (const m of reached) {
      const primary = m === market;
      const start = hour + (primary ? 0 : rng.int(1, 10));
      const life = Math.ceil(lifespan * (primary ? 1 : rng.uniform(0.4, 0.9)));
      const tau = Math.max(1, life / 2.5);
      const weight = (m.weight / this.maxWeight) ** 0.7 * (m.language === lang ? 1 : 0.3);
      let position = 1 + 12 * rng.next() ** 1.8 * (1.2 - popularity);
      let rows = 0;
      for (let h = start; h < Math.min(world.hours, start + life); h++) {
        const age = h - start;
        const curve = (1 - Math.exp(-(age + 1) / 1.2)) * Math.exp(-age / tau);
        position = Math.min(60, Math.max(1, position + rng.normal(0, 0.6) + 0.08 * (age / tau)));
        const imps = Math.floor(
          (potential * weight * curve * dailyCycle(this.startUtc + h, m.tz) * Math.exp(rng.normal(0, 0.25))) / Math.sqrt(position),
        );
        obs.push(observationLine(id, m, this.hourIso[h]!, imps, Math.round(position * 10) / 10));
        lastHour = Math.max(lastHour, h);
        rows++;
      }
      if (rows) stats.profiles++;
    }

    const datePublished = t0 - rng.int(5, 240) * 60_000;
    const images = Array.from({ length: rng.int(1, 2) }, () => {
      const key = rng.token(10);
      const cdn = (size: string) => `https://cdn.example.net/${id}/${key}-${size}.jpg`;
      return {
        source_url: `https://${publisher.domain}/img/${key}.jpg`,
        width: 1200,
        height: 675,
        content_type: 'image/jpeg',
        storage_urls: { original: cdn('original'), w512: cdn('512'), w256: cdn('256'), w128: cdn('128'), w64: cdn('64') },
      };
    });
    const byType = (t: string) => ents.filter((e) => e.mentionType === t).map((e) => e.name);
    const secondary = rng.chance(0.4) ? world.topics.find((x) => x.theme === topic.theme && x !== topic) : undefined;
    const section = topic.topic.category
      .split('/')[1]!
      .toLowerCase()
      .replace(/[^a-z]+/g, '-');
    const slug = titleEn
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60);
    const ymd = iso(datePublished).slice(0, 10).replace(/-/g, '/');
    const article = {
      type: 'article',
      id,
      url: `https://${publisher.domain}/${section}/${ymd}/${slug}-${rng.token(6)}`,
      domain: publisher.domain,
      publisher: publisher.name,
      favicon_url: `https://${publisher.domain}/favicon.ico`,
      title: titleLocal,
      title_en: titleEn,
      summary,
      summary_en: summaryEn,
      body,
      content_language: lang,
      date_published: iso(datePublished),
      date_modified: rng.chance(0.6) ? iso(Math.min(world.now, datePublished + rng.int(10, 600) * 60_000)) : null,
      meta: {
        meta_title: `${titleLocal} | ${publisher.name}`,
        meta_description: summary,
        headline: titleLocal,
        section: topic.topic.label,
      },
      enrichment: {
        actors: ents.filter((e) => e.mentionType === 'person' || e.mentionType === 'organization').map((e) => e.name),
        topic: [topic.topic.label, ...keywords.map((k) => k[0])],
        format_group: rng.pick(['news', 'news', 'opinion', 'feature', 'explainer']),
        format_type: rng.pick(['article', 'article', 'live_blog', 'analysis', 'gallery']),
        entities: { people: byType('person'), orgs: byType('organization'), places: byType('place') },
      },
      rss_feeds: rng.chance(0.5)
        ? null
        : [{ url: `https://${publisher.domain}/rss/${section}.xml`, title: `${publisher.name} ${topic.topic.label}` }],
      images,
      image_url: images[0]!.source_url,
      markdown_content: rng.chance(world.scale.markdownShare) ? `# ${titleLocal}\n\n${body}` : null,
      first_seen_at: iso(t0),
      refreshed_at: iso(Math.min(world.now, world.windowStart + (lastHour + 1) * HOUR)),
      categories: [
        { name: topic.topic.category, confidence: Math.round(rng.uniform(0.7, 0.98) * 100) / 100 },
        ...(secondary ? [{ name: secondary.topic.category, confidence: Math.round(rng.uniform(0.2, 0.5) * 100) / 100 }] : []),
      ],
      entities: ents.map((e) => ({
        name: e.name,
        type: e.mentionType,
        kg_id: e.kgId,
        mentions: rng.int(1, 8),
        unified_score: Math.round(rng.uniform(0.3, 0.99) * 1000) / 1000,
        embedding_similarity: Math.round(rng.uniform(0.2, 0.95) * 1000) / 1000,
        source: rng.pick(['title', 'body', 'ner', 'kg_linker']),
      })),
    };
    out(JSON.stringify(article));
    for (const line of obs) out(line);
    stats.articles++;
    stats.observations += obs.length;
    if (trend) {
      out(
        JSON.stringify({
          type: 'trend_article',
          trend_id: trend.id,
          url_id: id,
          assignment_method: rng.pick(['embedding_knn', 'embedding_knn', 'entity_overlap', 'keyword_rule', 'manual']),
          assignment_score: Math.round(rng.uniform(0.55, 0.98) * 1000) / 1000,
          trend_role: trendRole(rng, trend, hour),
          assigned_at: iso(Math.min(world.now, t0 + rng.int(5, 180) * 60_000)),
        }),
      );
      stats.trendArticles++;
    }
  }
}
