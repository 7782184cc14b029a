// The deployed Workers as `wrangler deploy` bundles them (a dry run per wrangler.toml environment):
// raw and gzip size, the largest packages inside (esbuild's metafile), and the gzip budget each must
// stay within. Used by `npm run build`, `npm run bench -- startup` and tests/node/bundles.test.ts.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { unstable_readConfig } from 'wrangler';
import { gzipSync } from 'node:zlib';

export const ROOT = join(import.meta.dirname, '..', '..');

/** Every Worker wrangler.toml deploys, by environment. */
export const WORKERS = ['tracking', 'feed', 'public', 'geo', 'trends', 'entities', 'articles', 'mcp', 'jobs'] as const;
export type WorkerName = (typeof WORKERS)[number];

/**
 * Gzip budgets in KiB (docs/PERFORMANCE.md "Budgets" explains the floor: the mandated stack alone,
 * before the first route of ours). A bundle over its budget fails the build and the test.
 */
// 215 since freshness, exports and the edge answers joined every area's chain, and the security checks
// (bounded windows, stored refusals, 401 throttling) with them; each budget's sizes when it was set:
// docs/PERFORMANCE.md "Budgets".
const AREA_BUDGET_KIB = 215;
export const BUDGET_KIB: Record<WorkerName, number> = {
  // 222 since issue 45: the matches stream (its route, the shared SSE writer, signal and spend timer).
  // 224 since issue 48's SQL over the schema: the list reads import the tracking, accounts and content
  // table definitions (223.6 KiB; 221.5 before).
  // 225 since issue 47's public clients after validation: createArea's services() imports the client modules
  // on first use, which esbuild wraps to run on first import (224.2 KiB; every request Worker +0.5-0.6).
  // 227 since issue 48's roll-up readers over the schema: the metrics and roll-up reads import the roll-up
  // table definitions (shared/db/schema/rollups.ts) and name their columns (226.4 KiB; 224.5 before).
  tracking: 227,
  // 217 since issue 48's SQL over the schema: the feed's reads import the content, feed and trends table
  // definitions (216.2 KiB; 213.1 before).
  // 218 since issue 47's public clients after validation (216.8 KiB; see tracking).
  feed: 218,
  public: AREA_BUDGET_KIB,
  geo: AREA_BUDGET_KIB,
  trends: AREA_BUDGET_KIB,
  entities: AREA_BUDGET_KIB,
  articles: AREA_BUDGET_KIB,
  jobs: AREA_BUDGET_KIB,
  // 292 since 2026-11-28: the public area's plain line (its handler module, plainArea, the lazy imports).
  // 294 since issue 46: the edge limits' lease script (its Lua text), plan-gates.ts and grant.ts.
  // 302 since issue 45: both streams' routes (the MCP Worker mounts every area's routes).
  // 303 since issue 48: the cache registry's holders and names, beside the streams' slot leases.
  // 310 since issue 48's SQL over the schema: query modules import the table definitions (shared/db/schema/*;
  // content.ts alone 1.6 KiB gzip, with its index declarations, which a bundle cannot drop); public, geo, articles
  // (305.2), feed (307.0), trends (307.4), entities (308.3), tracking lists (309.4).
  // 311 since issue 47's public clients after validation (309.8 KiB; see tracking).
  // 312 since issue 43's hulls open at the frontier: the hull counts read activity_frontier (its table
  // definition) and clamp buckets after it (311.0 KiB, 310.9 before; tracking 226.6).
  mcp: 312,
};

/** A path literal that only the named area registers. */
const MARKERS: Record<WorkerName, string[]> = {
  tracking: ["'/v1/tracking"],
  feed: ["'/v2/feed", "'/v2/live"],
  public: ["'/public"],
  geo: ["'/geo/regions/{alpha_2}/cities'"],
  trends: ["'/v1/trends", "'/v1/themes", "'/v1/topics"],
  entities: ["'/v1/entities"],
  articles: ["'/v1/articles", "'/v1/analytics"],
  mcp: ["'/mcp'"],
  jobs: [],
};
/** The MCP Worker runs every area's routes in-process for its tool calls: other areas' routes are its own. */
const HOLDS_EVERY_AREA = new Set(['mcp']);

/** Whether a bundle holds its own area's routes and no other area's (the MCP Worker holds them all). */
export function routesIn(code: string, name: WorkerName): { ok: boolean; verdict: string } {
  const text = code.replaceAll('"', "'");
  const foreign = WORKERS.filter((other) => other !== name && !HOLDS_EVERY_AREA.has(name)).flatMap((other) =>
    MARKERS[other].filter((m) => text.includes(m)).map((m) => `${other}:${m}`),
  );
  const ok = foreign.length === 0 && MARKERS[name].every((m) => text.includes(m));
  const scope = HOLDS_EVERY_AREA.has(name) ? "its own and every area's routes" : 'only its own routes';
  return { ok, verdict: foreign.length ? `FOREIGN ${foreign.join(' ')}` : ok ? scope : 'MISSING its own routes' };
}

/** A request each Worker answers without a database or Redis: its first route without a key (401). */
export const PROBES: Partial<Record<WorkerName | 'minimal', { method: string; path: string; status: number }>> = {
  minimal: { method: 'GET', path: '/hello/world', status: 200 },
  tracking: { method: 'GET', path: '/v1/tracking/lists', status: 401 },
  feed: { method: 'GET', path: '/v2/feed', status: 401 },
  public: { method: 'GET', path: '/public/widget.js', status: 200 },
  geo: { method: 'GET', path: '/v1/geo/regions', status: 401 },
  trends: { method: 'GET', path: '/v1/trends', status: 401 },
  entities: { method: 'GET', path: '/v1/entities', status: 401 },
  articles: { method: 'GET', path: '/v1/articles', status: 401 },
  mcp: { method: 'POST', path: '/mcp', status: 401 },
};

const MCP_ACCEPT = 'application/json, text/event-stream';
/**
 * A real caller's first request: the demo `full` key on a cheap route of each Worker (200). The
 * public Worker takes no key: its probe is a keyless lookup of the demo data instead.
 */
const KEYED: Record<WorkerName | 'minimal', { method: string; path: string; body?: object; keyless?: boolean } | undefined> = {
  minimal: { method: 'GET', path: '/hello/world', keyless: true },
  tracking: { method: 'GET', path: '/v1/usage' },
  feed: { method: 'GET', path: '/v2/feed?limit=1' },
  public: { method: 'GET', path: '/public/platform-profile?domain=citypost.co.uk', keyless: true },
  geo: { method: 'GET', path: '/v1/geo/languages' },
  trends: { method: 'GET', path: '/v1/themes' },
  entities: { method: 'GET', path: '/v1/entities?limit=1' },
  articles: { method: 'GET', path: '/v1/analytics/categories' },
  jobs: undefined,
  mcp: {
    method: 'POST',
    path: '/mcp',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_languages', arguments: {} } },
  },
};

export interface Probe {
  method: string;
  path: string;
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** The keyed first request of a Worker (200 with `key`), or undefined for the jobs Worker. */
export function keyedProbe(name: WorkerName | 'minimal', key: string): Probe | undefined {
  const probe = KEYED[name];
  if (!probe) return undefined;
  const headers: Record<string, string> = probe.keyless ? {} : { 'X-API-Key': key };
  if (probe.body) Object.assign(headers, { 'Content-Type': 'application/json', Accept: MCP_ACCEPT });
  return { method: probe.method, path: probe.path, status: 200, headers, body: probe.body && JSON.stringify(probe.body) };
}

/** Unreachable services: the probes never get past the key check (or need no data). */
export const NO_SERVICES = {
  DATABASE_URL: 'postgres://probe@127.0.0.1:9/none',
  UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:9',
  UPSTASH_REDIS_REST_TOKEN: 'none',
};

export interface Bundle {
  name: string;
  /** The bundled script (`index.js`) and its directory (modules root). */
  script: string;
  dir: string;
  code: string;
  /** The environment's compatibility flags, as deployed (the request Workers opt out of Node compatibility). */
  flags: string[];
  raw: number;
  gzip: number;
  /** Largest contributors first: npm package, or the project folder (`functions/geo`, `shared`). */
  packages: [name: string, bytes: number][];
}

const wrangler = join(ROOT, 'node_modules/.bin/wrangler');

/** Bundles one environment of `config` (default wrangler.toml) into `dir`, as `wrangler deploy` would. */
export function bundle(name: string, dir: string, env: string = name, config = join(ROOT, 'wrangler.toml')): Bundle {
  rmSync(dir, { recursive: true, force: true });
  const meta = join(dir, 'meta.json');
  execFileSync(wrangler, ['deploy', '--dry-run', '--config', config, '--env', env, '--outdir', dir, '--metafile', meta], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    cwd: ROOT,
  });
  // Named after the entry module: index.js for the areas.
  const { main, compatibility_flags: flags } = configOf(config, env);
  const script = join(dir, basename(main).replace(/\.ts$/, '.js'));
  const code = readFileSync(script, 'utf8');
  return { name, script, dir, code, flags, raw: Buffer.byteLength(code), gzip: gzipSync(code).length, packages: packagesOf(meta) };
}

function configOf(config: string, env: string): { main: string; compatibility_flags: string[] } {
  const { main, compatibility_flags } = unstable_readConfig({ config, env: env || undefined }, { hideWarnings: true });
  if (!main) throw new Error(`${config} [${env}] has no main module`);
  return { main, compatibility_flags };
}

/** The last package folder of a module path, else the project folder it sits in. */
function owner(path: string): string {
  const pkg = path.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg;
  const parts = path.replace(/^(\.\.\/)+/, '').split('/');
  return parts[0] === 'functions' ? parts.slice(0, 2).join('/') : parts[0];
}

function packagesOf(metafile: string): [string, number][] {
  const { outputs } = JSON.parse(readFileSync(metafile, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const sizes = new Map<string, number>();
  for (const output of Object.values(outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      sizes.set(owner(path), (sizes.get(owner(path)) ?? 0) + bytesInOutput);
    }
  }
  return [...sizes].filter(([, bytes]) => bytes > 0).sort((a, b) => b[1] - a[1]);
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** `zod 196 KiB, @neondatabase/serverless 142 KiB, ...` (minified bytes in the bundle). */
export const topPackages = (b: Bundle, n = 5) =>
  b.packages
    .slice(0, n)
    .map(([name, bytes]) => `${name} ${Math.round(bytes / 1024)}`)
    .join(', ');

export const overBudget = (b: Bundle, name: WorkerName) => b.gzip > BUDGET_KIB[name] * 1024;
