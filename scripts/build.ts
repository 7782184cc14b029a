// `npm run build`: bundles every function offline (wrangler deploy --dry-run), prints raw and gzip
// sizes against each gzip budget, the largest packages inside each bundle, and checks that each
// bundle holds only its own area's routes. Exits 1 when a bundle is over budget or holds foreign routes.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WIDGET_SOURCE } from '../functions/public/widget-source';
import { BUDGET_KIB, bundle, kib, overBudget, routesIn, topPackages, WORKERS } from './lib/bundles';

const OUT = join('dist', 'functions');
const failures: string[] = [];
const rows: string[][] = [];

for (const name of WORKERS) {
  const built = bundle(name, join(OUT, name));
  const { ok: routesOk, verdict } = routesIn(built.code, name);
  if (!routesOk) failures.push(`${name}: ${verdict}`);
  const over = overBudget(built, name);
  if (over) failures.push(`${name}: ${kib(built.gzip)} gzip is over its budget of ${BUDGET_KIB[name]} KiB`);
  rows.push([name, kib(built.raw), kib(built.gzip), `${BUDGET_KIB[name]} KiB${over ? ' OVER' : ''}`, verdict, topPackages(built)]);
}

// The embeddable widget (served by the public Worker as /public/widget.js): its own row, as sent.
rows.push([
  'public: /public/widget.js',
  kib(Buffer.byteLength(WIDGET_SOURCE)),
  kib(gzipSync(WIDGET_SOURCE).length),
  '',
  'the <discover-profile> script',
  '',
]);

const header = ['function', 'raw', 'gzip', 'budget', 'routes', 'largest packages (KiB minified)'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) =>
  cells
    .map((c, i) => c.padEnd(widths[i]))
    .join('  ')
    .trimEnd();
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of rows) console.log(line(row));
if (failures.length) {
  console.error(`\n${failures.join('\n')}`);
  process.exit(1);
}
