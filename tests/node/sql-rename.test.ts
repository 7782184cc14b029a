// Queries name the schema's columns (issue 48): renaming a column's TypeScript property in shared/db/schema
// fails the type check in the query module that reads it. The test type-checks a copy of functions/ and
// shared/ (the query modules and what they import, with the repository's compiler options): once as it is,
// which passes, and once with every listed property renamed, where each reader must fail on its own
// property (a diagnostic in the reader that names it).
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/.bin/tsc');

/** The query modules whose SQL is drizzle's `sql` template over the schema's tables and columns. */
const QUERY_MODULES = [
  'functions/public/queries.ts',
  'functions/geo/queries.ts',
  'functions/articles/queries.ts',
  'functions/feed/queries.ts',
  'functions/feed/items.ts',
  'functions/feed/stream-queries.ts',
  'functions/trends/queries.ts',
  'functions/trends/articles-query.ts',
  'functions/trends/hierarchy-queries.ts',
  'functions/entities/queries.ts',
  'functions/tracking/queries.ts',
  'functions/tracking/matches-query.ts',
  'functions/tracking/matches-stream-query.ts',
  'shared/rollups/read.ts',
  'shared/rollups/activity-counts.ts',
  'shared/rollups/coverage.ts',
  'functions/articles/categories-compute.ts',
  'functions/tracking/items.ts',
  'functions/tracking/facts.ts',
  'functions/tracking/rollup-compute.ts',
  'functions/entities/trending-queries.ts',
  'functions/trends/rollup-compute.ts',
];

/** One property per converted area, renamed where the schema declares it (a declaration that occurs once in its file). */
const RENAMES = [
  {
    schema: 'shared/db/schema/content.ts',
    from: "profileTitle: text('profile_title')",
    to: "profileTitleRenamed: text('profile_title')",
    reader: 'functions/public/queries.ts',
  },
  {
    schema: 'shared/db/schema/geo.ts',
    from: "subRegion: text('sub_region')",
    to: "subRegionRenamed: text('sub_region')",
    reader: 'functions/geo/queries.ts',
  },
  {
    schema: 'shared/db/schema/content.ts',
    from: "impressionsTotal: bigint('impressions_total'",
    to: "impressionsTotalRenamed: bigint('impressions_total'",
    reader: 'functions/articles/queries.ts',
  },
  {
    schema: 'shared/db/schema/feed.ts',
    from: "validTo: bigint('valid_to'",
    to: "validToRenamed: bigint('valid_to'",
    reader: 'functions/feed/queries.ts',
  },
  {
    schema: 'shared/db/schema/trends.ts',
    from: "assignmentScore: doublePrecision('assignment_score')",
    to: "assignmentScoreRenamed: doublePrecision('assignment_score')",
    reader: 'functions/feed/items.ts',
  },
  {
    schema: 'shared/db/schema/trends.ts',
    from: "establishedAt: tstz('established_at')",
    to: "establishedAtRenamed: tstz('established_at')",
    reader: 'functions/trends/queries.ts',
  },
  {
    schema: 'shared/db/schema/trends.ts',
    from: "nArticles: integer('n_articles').notNull(),\n  },\n  (t) => [primaryKey({ columns: [t.level, t.market",
    to: "nArticlesRenamed: integer('n_articles').notNull(),\n  },\n  (t) => [primaryKey({ columns: [t.level, t.market",
    reader: 'functions/trends/hierarchy-queries.ts',
  },
  {
    schema: 'shared/db/schema/content.ts',
    from: "wikipediaUrl: text('wikipedia_url')",
    to: "wikipediaUrlRenamed: text('wikipedia_url')",
    reader: 'functions/entities/queries.ts',
  },
  {
    schema: 'shared/db/schema/tracking.ts',
    from: "colorIndex: integer('color_index')",
    to: "colorIndexRenamed: integer('color_index')",
    reader: 'functions/tracking/queries.ts',
  },
  {
    schema: 'shared/db/schema/tracking.ts',
    from: "matchedText: text('matched_text')",
    to: "matchedTextRenamed: text('matched_text')",
    reader: 'functions/tracking/matches-query.ts',
  },
  {
    schema: 'shared/db/schema/tracking.ts',
    from: "matchedAt: tstz('matched_at')",
    to: "matchedAtRenamed: tstz('matched_at')",
    reader: 'functions/tracking/matches-stream-query.ts',
  },
  {
    schema: 'shared/db/schema/content.ts',
    from: "isVideo: boolean('is_video')",
    to: "isVideoRenamed: boolean('is_video')",
    reader: 'functions/tracking/queries.ts',
  },
  {
    schema: 'shared/db/schema/rollups.ts',
    from: "startHour: tstz('start_hour')",
    to: "startHourRenamed: tstz('start_hour')",
    reader: 'shared/rollups/read.ts',
  },
  {
    schema: 'shared/db/schema/rollups.ts',
    from: "gapEnd: tstz('gap_end')",
    to: "gapEndRenamed: tstz('gap_end')",
    reader: 'shared/rollups/activity-counts.ts',
  },
  {
    schema: 'shared/db/schema/content.ts',
    from: "country: text('country').notNull(),\n    language: text('language').notNull(),\n    day: date('day', { mode: 'string' }).notNull(),\n    impressions: bigint('impressions', { mode: 'number' }).notNull().default(0),",
    to: "countryRenamed: text('country').notNull(),\n    language: text('language').notNull(),\n    day: date('day', { mode: 'string' }).notNull(),\n    impressions: bigint('impressions', { mode: 'number' }).notNull().default(0),",
    reader: 'shared/rollups/coverage.ts',
  },
  {
    schema: 'shared/db/schema/rollups.ts',
    from: "id: integer('id').primaryKey().generatedByDefaultAsIdentity()",
    to: "idRenamed: integer('id').primaryKey().generatedByDefaultAsIdentity()",
    reader: 'functions/articles/categories-compute.ts',
  },
  {
    schema: 'shared/db/schema/tracking.ts',
    from: "position: integer('position')",
    to: "positionRenamed: integer('position')",
    reader: 'functions/tracking/items.ts',
  },
  {
    schema: 'shared/db/schema/content.ts',
    from: "lastSeen: tstz('last_seen')",
    to: "lastSeenRenamed: tstz('last_seen')",
    reader: 'functions/tracking/facts.ts',
  },
  {
    schema: 'shared/db/schema/content.ts',
    from: "impressions: integer('impressions')",
    to: "impressionsRenamed: integer('impressions')",
    reader: 'functions/tracking/rollup-compute.ts',
  },
  {
    schema: 'shared/db/schema/entities.ts',
    from: "embeddingSimilarity: doublePrecision('embedding_similarity').notNull(),\n  },\n  (t) => [primaryKey({ columns: [t.entityId, t.country, t.language, t.day] })]",
    to: "embeddingSimilarityRenamed: doublePrecision('embedding_similarity').notNull(),\n  },\n  (t) => [primaryKey({ columns: [t.entityId, t.country, t.language, t.day] })]",
    reader: 'functions/entities/trending-queries.ts',
  },
  {
    schema: 'shared/db/schema/content.ts',
    from: "firstSeenAt: tstz('first_seen_at')",
    to: "firstSeenAtRenamed: tstz('first_seen_at')",
    reader: 'functions/trends/rollup-compute.ts',
  },
];

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** functions/ and shared/ copied beside a tsconfig that checks only QUERY_MODULES (and their imports). */
function copyTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sql-rename-'));
  copies.push(dir);
  for (const folder of ['functions', 'shared']) cpSync(join(ROOT, folder), join(dir, folder), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
  // The declaration of what Workers provide of node:async_hooks, which the request context imports.
  const files = [...QUERY_MODULES, 'shared/observability/async-hooks.d.ts'];
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  return dir;
}

/** tsc's verdict on the copy: 'ok', or its diagnostics. */
async function typecheck(dir: string): Promise<string> {
  try {
    await run(TSC, ['--noEmit', '-p', join(dir, 'tsconfig.json')], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return 'ok';
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    return `${stdout}${stderr}`.trim() || String(err);
  }
}

/** The copy with every rename at once, type-checked once: each case reads its own reader's diagnostics. */
let renamed: Promise<string> | undefined;
function typecheckRenamed(): Promise<string> {
  return (renamed ??= (async () => {
    const dir = copyTree();
    for (const { schema, from, to } of RENAMES) {
      const file = join(dir, schema);
      const text = readFileSync(file, 'utf8');
      expect(text.split(from).length, `${from} occurs once in ${schema}`).toBe(2);
      writeFileSync(file, text.replace(from, to));
    }
    return typecheck(dir);
  })());
}

/** The readers that keep positional text (shared/db/raw.ts `queryRows`): no table definitions on every request's path. */
const PLAIN = ['shared/auth/keys.ts', 'shared/http/freshness.ts', 'shared/scope/scope.ts'];

describe('a renamed schema column fails the type check of the queries that read it', () => {
  it('only the plain statements of every request read positional SQL text', () => {
    const served = ['functions', 'shared'].flatMap((folder) =>
      readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => `${folder}/${file}`),
    );
    const positional = served.filter((file) => file !== 'shared/db/raw.ts' && /\bqueryRows\b/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(positional.sort()).toEqual([...PLAIN].sort());
  });

  it('the query modules type-check as they are', async () => {
    expect(await typecheck(copyTree())).toBe('ok');
  }, 60_000);

  // One type check of all renames (one tsc run, not one per rename): a case passes when its reader has a
  // diagnostic that names the property it renamed, so another rename's error does not count for it.
  it.each(RENAMES)(
    '$from renamed in $schema fails $reader',
    async ({ from, reader }) => {
      const property = from.slice(0, from.indexOf(':'));
      const verdict = await typecheckRenamed();
      expect(verdict).not.toBe('ok');
      const own = verdict.split('\n').filter((line) => line.startsWith(`${reader}(`) && line.includes(`'${property}'`));
      expect(own, `${reader} names '${property}' in its diagnostics:\n${verdict}`).not.toEqual([]);
    },
    120_000,
  );
});
