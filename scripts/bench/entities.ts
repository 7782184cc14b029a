// `npm run bench -- entities [--scale bench] [--lines N] [--runs 15] [--scope all|US|US,GB,DE]`
// The entity read paths exactly as the routes run them (functions/entities/*queries.ts, same SQL and
// parameters) against the same answer from a raw aggregate over article_entities and url_profiles,
// both on one direct connection to the bench set (`bench_rollups`; a database loaded before
// 0010_trending_tops gets the tops tables backfilled by rollups-load.ts `upgrade`), so the times are database time
// plus a local round trip. The first pair of each case is compared for equality; then `--runs`
// pairs alternate sides. Targets (docs/BENCHMARKS.md "Entities"): trending >= 20x the raw aggregate and p50 <= 30 ms;
// `search` >= 10x an ILIKE scan.
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { Db } from '../../shared/db/client';
import { countArticles, entityArticles, getEntity, listEntities, type ListFilter } from '../../functions/entities/queries';
import { scopeOf } from '../../shared/scope/scope';
import { rankTrending, type TrendingRequest } from '../../functions/entities/trending-queries';
import { connectTo } from '../lib/bench-harness';
import { BENCH_NOW } from './generate';
import { ensureRollupsData, rollupsDb } from './rollups-load';
import { fmt, fmtRatio, log, median, p95, ratio, table } from './stats';

/** The key's countries (null: every market), as the raw baselines take them. */
type Countries = string[] | null;
/** The Scope the routes build for an unrestricted-plan key with these countries. */
const keyScope = (countries: Countries) => scopeOf({ projectId: null, allowedCountries: countries, categories: null });

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

/**
 * The route queries read through `db.execute` (drizzle's `sql`) or `db.$client.query` (positional text) on
 * neon-http; here both go to a pg client, the `sql` as the text and parameters drizzle's PostgreSQL dialect makes of it.
 */
const dialect = new PgDialect();
const asDb = (client: pg.Client) =>
  ({
    execute: async (query: SQL) => {
      const { sql, params } = dialect.sqlToQuery(query);
      return { rows: (await client.query(sql, params)).rows };
    },
    $client: { query: async (text: string, params: unknown[]) => (await client.query(text, params)).rows },
  }) as unknown as Db;

const HOUR = 3_600_000;
const PERIODS = { '1h': 1, '6h': 6, '24h': 24, '7d': 168 } as const;
const ceilHour = (ms: number) => new Date(Math.ceil(ms / HOUR) * HOUR);

// ---- raw aggregates: the same answers without entity_best / entity_hours ----

const rawList = async (c: pg.Client, countries: Countries, f: ListFilter) => {
  const params = [countries, f.search === null ? null : `%${f.search}%`, f.entityType, f.minScore];
  const base = `WITH v AS (SELECT ae.* FROM article_entities ae
      WHERE $1::text[] IS NULL OR EXISTS (SELECT 1 FROM url_profiles p WHERE p.url_id = ae.url_id AND p.country = ANY($1::text[]))),
    b AS (SELECT DISTINCT ON (entity_id) * FROM v ORDER BY entity_id, unified_score DESC, embedding_similarity DESC, url_id)
    SELECT e.normalized_name, b.unified_score, b.url_id::text, count(*) OVER ()::int AS total FROM b JOIN entities e ON e.id = b.entity_id
    WHERE b.unified_score >= $4 AND ($2::text IS NULL OR e.name ILIKE $2) AND ($3::text IS NULL OR $3 = ANY(e.entity_types))
    ORDER BY b.unified_score DESC, e.normalized_name LIMIT ${f.limit} OFFSET ${f.offset}`;
  const { rows } = await c.query(base, params);
  return { total: rows[0]?.total ?? 0, rows: rows.map((r) => [r.normalized_name, r.unified_score, r.url_id]) };
};

/** The precomputed best occurrences filtered by a plain ILIKE (no trigram index): search's second baseline. */
const ilikeOverBest = async (c: pg.Client, f: ListFilter) => {
  const { rows } = await c.query(
    `SELECT e.normalized_name, b.unified_score, b.url_id::text, count(*) OVER ()::int AS total
     FROM entity_best b JOIN entities e ON e.id = b.entity_id
     WHERE b.country = '*' AND b.unified_score >= $2 AND e.name ILIKE $1
     ORDER BY b.unified_score DESC, e.normalized_name LIMIT ${f.limit} OFFSET ${f.offset}`,
    [`%${f.search}%`, f.minScore],
  );
  return { total: rows[0]?.total ?? 0, rows: rows.map((r) => [r.normalized_name, r.unified_score, r.url_id]) };
};

const rawTrending = async (c: pg.Client, r: TrendingRequest) => {
  const { rows } = await c.query(
    `WITH w AS (SELECT url_id, language, first_seen FROM url_profiles
       WHERE country = $1 AND ($2::text IS NULL OR language = $2) AND first_seen >= $3 AND first_seen < $4),
     f AS (SELECT url_id, min(first_seen) AS fs FROM url_profiles
       WHERE country = $1 AND ($2::text IS NULL OR language = $2) AND url_id IN (SELECT url_id FROM w) GROUP BY url_id),
     m AS (SELECT ae.entity_id, count(*)::int AS mentions FROM w JOIN article_entities ae ON ae.url_id = w.url_id GROUP BY 1),
     a AS (SELECT ae.entity_id, count(*)::int AS articles FROM f JOIN article_entities ae ON ae.url_id = f.url_id
       WHERE f.fs >= $3 AND f.fs < $4 GROUP BY 1),
     ranked AS (SELECT e.id, e.name, m.mentions, coalesce(a.articles, 0) AS articles FROM m JOIN entities e ON e.id = m.entity_id
       LEFT JOIN a ON a.entity_id = m.entity_id WHERE $5::text IS NULL OR $5 = ANY(e.entity_types)
       ORDER BY m.mentions DESC, coalesce(a.articles, 0) DESC, e.normalized_name LIMIT $6)
     SELECT r.name, r.mentions, r.articles, t.url_id::text AS top FROM ranked r
     CROSS JOIN LATERAL (SELECT ae.url_id FROM w JOIN article_entities ae ON ae.url_id = w.url_id AND ae.entity_id = r.id
       ORDER BY ae.unified_score DESC, ae.embedding_similarity DESC, ae.url_id LIMIT 1) t
     ORDER BY r.mentions DESC, r.articles DESC, r.name`,
    [r.country, r.language, r.from.toISOString(), r.to.toISOString(), r.entityType, r.limit],
  );
  return rows.map((x) => [x.name, x.mentions, x.articles, x.top]);
};

const rawDetail = async (c: pg.Client, countries: Countries, name: string) => {
  const { rows } = await c.query(
    `WITH v AS (SELECT ae.* FROM article_entities ae JOIN entities e ON e.id = ae.entity_id WHERE e.normalized_name = $2
       AND ($1::text[] IS NULL OR EXISTS (SELECT 1 FROM url_profiles p WHERE p.url_id = ae.url_id AND p.country = ANY($1::text[]))))
     SELECT (SELECT url_id::text FROM v ORDER BY unified_score DESC, embedding_similarity DESC, url_id LIMIT 1) AS url_id,
            (SELECT count(*)::int FROM v) AS n`,
    [countries, name],
  );
  return [rows[0].url_id, rows[0].n];
};

const rawArticles = async (c: pg.Client, countries: Countries, name: string) => {
  const { rows } = await c.query(
    `WITH v AS (SELECT ae.* FROM article_entities ae JOIN entities e ON e.id = ae.entity_id WHERE e.normalized_name = $2
       AND ($1::text[] IS NULL OR EXISTS (SELECT 1 FROM url_profiles p WHERE p.url_id = ae.url_id AND p.country = ANY($1::text[]))))
     SELECT v.url_id::text, a.title, count(*) OVER ()::int AS total FROM v JOIN articles a ON a.id = v.url_id
     ORDER BY v.unified_score + 0 DESC, v.embedding_similarity DESC, v.url_id LIMIT 50`,
    [countries, name],
  );
  return [rows[0]?.total ?? 0, rows.map((r) => r.url_id)];
};

// ---- the route paths ----

const apiList = async (db: Db, countries: Countries, f: ListFilter) => {
  const { total, rows } = await listEntities(db, keyScope(countries), f);
  return { total, rows: rows.map((r) => [r.normalized_name, r.unified_score, r.url_id]) };
};

const apiTrending = async (db: Db, r: TrendingRequest) => {
  const ranked = await rankTrending(db, r);
  return ranked.map((x) => [x.name, x.mentions, x.articles, x.top_url_id]);
};

const apiDetail = async (db: Db, countries: Countries, name: string) => {
  const row = await getEntity(db, keyScope(countries), name);
  return row ? [row.url_id, await countArticles(db, keyScope(countries), row.id)] : [null, 0];
};

const apiArticles = async (db: Db, countries: Countries, name: string) => {
  const row = await getEntity(db, keyScope(countries), name);
  if (!row) return [0, []];
  const [rows, total] = await Promise.all([
    entityArticles(db, keyScope(countries), row.id, 50, 0),
    countArticles(db, keyScope(countries), row.id),
  ]);
  return [total, rows.map((r) => r.url_id)];
};

interface Case {
  label: string;
  api: () => Promise<unknown>;
  raw: () => Promise<unknown>;
  baseline: string;
}

export async function run(argv: string[]): Promise<void> {
  const runs = Number(arg(argv, '--runs', '15'));
  const scale = arg(argv, '--scale', 'bench');
  const lines = argv.includes('--lines') ? Number(arg(argv, '--lines', '0')) : undefined;
  const scopeArg = arg(argv, '--scope', 'all');
  const countries: Countries = scopeArg === 'all' ? null : scopeArg.split(',').map((s) => s.trim().toUpperCase());
  const { client: setup } = await ensureRollupsData({ scale, lines });
  const {
    rows: [sizes],
  } = await setup.query<Record<string, string>>(`SELECT (SELECT count(*) FROM entities) AS entities,
    (SELECT count(*) FROM article_entities) AS article_entities, (SELECT count(*) FROM articles) AS articles,
    (SELECT count(*) FROM url_profiles) AS profiles, (SELECT count(*) FROM entity_best) AS entity_best,
    (SELECT count(*) FROM entity_hours) AS entity_hours, (SELECT count(*) FROM entity_hour_tops) AS entity_hour_tops,
    (SELECT count(*) FROM entity_day_tops) AS entity_day_tops`);
  log(`data: ${JSON.stringify(sizes)}`);
  const { rows: picks } = await setup.query<{ normalized_name: string; n: number }>(
    `SELECT e.normalized_name, x.n FROM (SELECT entity_id, count(*)::int AS n FROM article_entities GROUP BY entity_id) x
     JOIN entities e ON e.id = x.entity_id ORDER BY x.n DESC, e.normalized_name`,
  );
  const heavy = picks[0];
  const typical = picks[Math.floor(picks.length / 2)];
  const {
    rows: [top],
  } = await setup.query<{ country: string }>(`SELECT country FROM url_profiles GROUP BY country ORDER BY count(*) DESC, country LIMIT 1`);
  // A search word: the second word of the heaviest entity's name, three letters of it (a typical prefix typed).
  const word = (heavy.normalized_name.split(' ')[1] ?? heavy.normalized_name).slice(0, 4);
  await setup.end();

  const db_ = await connectTo(rollupsDb(scale, lines));
  const db = asDb(db_);
  const now = Date.parse(BENCH_NOW);
  const list = (search: string | null): ListFilter => ({ search, entityType: null, minScore: 0, limit: 50, offset: 0 });
  const trending = (period: keyof typeof PERIODS, language: string | null = null): TrendingRequest => ({
    country: top.country,
    language,
    from: ceilHour(now - PERIODS[period] * HOUR),
    to: ceilHour(now),
    entityType: null,
    limit: 20,
  });
  const cases: Case[] = [
    {
      label: 'list',
      api: () => apiList(db, countries, list(null)),
      raw: () => rawList(db_, countries, list(null)),
      baseline: 'dedup aggregate over article_entities',
    },
    {
      label: `list search=${word}`,
      api: () => apiList(db, countries, list(word)),
      raw: () => rawList(db_, countries, list(word)),
      baseline: 'same, ILIKE',
    },
    ...(countries === null
      ? [
          {
            label: `list search=${word} (vs ILIKE on entity_best)`,
            api: () => apiList(db, null, list(word)),
            raw: () => ilikeOverBest(db_, list(word)),
            baseline: 'entity_best + ILIKE scan',
          },
        ]
      : []),
    ...(Object.keys(PERIODS) as (keyof typeof PERIODS)[]).map((p) => ({
      label: `trending ${top.country} ${p}`,
      api: () => apiTrending(db, trending(p)),
      raw: () => rawTrending(db_, trending(p)),
      baseline: 'url_profiles x article_entities',
    })),
    {
      label: `trending ${top.country} 24h lang`,
      api: () => apiTrending(db, trending('24h', 'en')),
      raw: () => rawTrending(db_, trending('24h', 'en')),
      baseline: 'url_profiles x article_entities',
    },
    ...[heavy, typical].flatMap((e) => [
      {
        label: `detail (${e.n} articles)`,
        api: () => apiDetail(db, countries, e.normalized_name),
        raw: () => rawDetail(db_, countries, e.normalized_name),
        baseline: 'best + count over article_entities',
      },
      {
        label: `articles (${e.n} articles)`,
        api: () => apiArticles(db, countries, e.normalized_name),
        raw: () => rawArticles(db_, countries, e.normalized_name),
        baseline: 'sort of the links',
      },
    ]),
  ];

  const results: (string | number)[][] = [];
  let mismatches = 0;
  try {
    for (const c of cases) {
      const a0 = await c.api();
      const r0 = await c.raw();
      const equal = JSON.stringify(a0) === JSON.stringify(r0);
      if (!equal) {
        mismatches++;
        log(`MISMATCH ${c.label}: ${JSON.stringify(a0).slice(0, 300)} vs ${JSON.stringify(r0).slice(0, 300)}`);
      }
      const ta: number[] = [];
      const tr: number[] = [];
      for (let i = 0; i < runs; i++) {
        const pair = [
          async () => {
            const t = performance.now();
            await c.api();
            ta.push(performance.now() - t);
          },
          async () => {
            const t = performance.now();
            await c.raw();
            tr.push(performance.now() - t);
          },
        ];
        if (i % 2) pair.reverse();
        for (const f of pair) await f();
      }
      results.push([
        c.label,
        fmt(median(ta), 2),
        fmt(p95(ta), 2),
        fmt(median(tr), 1),
        fmt(p95(tr), 1),
        fmtRatio(ratio(median(tr), median(ta))),
        c.baseline,
        equal ? 'yes' : 'NO',
      ]);
      log(
        `${c.label}: ${fmt(median(ta), 2)} ms vs ${fmt(median(tr), 1)} ms (${fmtRatio(ratio(median(tr), median(ta)))})${equal ? '' : ' MISMATCH'}`,
      );
    }
  } finally {
    await db_.end();
  }
  console.log(
    `\nentities: ${rollupsDb(scale, lines)}: ${Object.entries(sizes)
      .map(([k, v]) => `${k} ${fmt(Number(v))}`)
      .join(', ')}`,
  );
  console.log(
    `scope ${countries ? countries.join(',') : 'all markets (unrestricted key)'}; trending region ${top.country} (most profiles), windows end at ${BENCH_NOW}; ` +
      `${runs} alternating runs per case after a compared warm-up pair; ms per case on one direct connection (database time + local round trip)\n`,
  );
  console.log(table(['case', 'route p50 ms', 'route p95 ms', 'raw p50 ms', 'raw p95 ms', 'raw/route', 'raw baseline', 'equal'], results));
  if (mismatches) throw new Error(`${mismatches} cases where the route and the raw aggregate disagree`);
}
