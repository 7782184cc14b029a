// `npm run fuzz -- [--requests 20000] [--seed 1] [--concurrency 8] [--only opId,opId] [--keep]`:
// the OpenAPI fuzz suite against the bundled all-in-one Worker in workerd, on a fresh copy of the
// demo database (real PostgreSQL and Redis: PG_BASE_URL, REDIS_URL). Exit 1 on any failure.
import { startStack, FUZZ_NOW } from '../lib/demo-stack';
import { describeReport, runFuzz } from './run';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : fallback;
};
const requests = Number(arg('--requests', '3000'));
const seed = Number(arg('--seed', '1'));
const concurrency = Number(arg('--concurrency', '8'));
const only = argv.includes('--only') ? arg('--only', '').split(',').filter(Boolean) : undefined;
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- [--requests N] [--seed S] [--concurrency C] [--only opId,...]');
  process.exit(2);
}

const log = (line: string) => console.log(`[fuzz] ${line}`);
const stack = await startStack({
  database: `fuzz_run_${process.pid}`,
  log,
});
let failed = true;
try {
  const full = stack.keys.find((k) => k.name === 'full')!.key;
  const others = stack.keys.filter((k) => k.name !== 'full').map((k) => ({ name: k.name, key: k.key }));
  log(`seed ${seed}, ${requests} requests, concurrency ${concurrency}, worker at ${stack.url}`);
  const report = await runFuzz({ base: stack.url, keys: { full, others }, seed, requests, concurrency, now: FUZZ_NOW, only });
  console.log(describeReport(report, 25));
  for (const [op, n] of Object.entries(report.perOperation).sort()) console.log(`  ${op.padEnd(28)} ${n}`);
  failed = report.failures.length > 0;
} finally {
  await stack.dispose();
}
process.exit(failed ? 1 : 0);
