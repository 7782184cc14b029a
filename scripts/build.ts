// `npm run build`: bundles every function offline (wrangler deploy --dry-run), prints raw and gzip
// sizes, and checks that each bundle holds only its own area's routes.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WIDGET_SOURCE } from '../functions/public/widget-source';

/** A path literal that only the named area registers. */
const MARKERS: Record<string, string[]> = {
  tracking: ["'/v1/tracking"],
  feed: ["'/v2/feed", "'/v2/live"],
  public: ["'/public"],
  geo: ["'/regions/{alpha_2}/cities'"],
  trends: ["'/v1/trends", "'/v1/themes", "'/v1/topics"],
  entities: ["'/v1/entities"],
  articles: ["'/v1/articles", "'/v1/analytics"],
  mcp: ["'/mcp'"],
  jobs: [],
};
/** The MCP Worker runs every area's routes in-process for its tool calls: other areas' routes are its own. */
const HOLDS_EVERY_AREA = new Set(['mcp']);

const OUT = join('dist', 'functions');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
let failures = 0;
const rows: string[][] = [];

rmSync(OUT, { recursive: true, force: true });
for (const area of Object.keys(MARKERS)) {
  const outdir = join(OUT, area);
  execFileSync('wrangler', ['deploy', '--dry-run', '--env', area, '--outdir', outdir], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  const code = readFileSync(join(outdir, 'index.js'), 'utf8').replaceAll('"', "'");
  const foreign = Object.entries(MARKERS)
    .filter(([other]) => other !== area && !HOLDS_EVERY_AREA.has(area))
    .flatMap(([other, markers]) => markers.filter((m) => code.includes(m)).map((m) => `${other}:${m}`));
  const own = MARKERS[area].filter((m) => code.includes(m)).length;
  const ok = foreign.length === 0 && own === MARKERS[area].length;
  if (!ok) failures++;
  const scope = HOLDS_EVERY_AREA.has(area) ? 'its own and every area\'s routes' : 'only its own routes';
  const verdict = foreign.length ? `FOREIGN ${foreign.join(' ')}` : ok ? scope : 'MISSING its own routes';
  rows.push([area, kb(Buffer.byteLength(code)), kb(gzipSync(code).length), verdict]);
}

// The embeddable widget (served by the public Worker as /public/widget.js): its own row, as sent.
rows.push(['public: /public/widget.js', kb(Buffer.byteLength(WIDGET_SOURCE)), kb(gzipSync(WIDGET_SOURCE).length), 'the <discover-profile> script']);

const header = ['function', 'raw', 'gzip', 'routes'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of rows) console.log(line(row));
if (failures) {
  console.error(`\n${failures} bundle(s) hold routes of other areas`);
  process.exit(1);
}
