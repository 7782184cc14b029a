// `npm run contract`: the generated contract suite (scripts/contract/run.ts) against the bundled
// all-in-one Worker on a fresh copy of the demo database, as `npm test` runs it. Exit 1 on a failure.
import { startStack } from '../lib/demo-stack';
import { runContractSuite } from './run';

const stack = await startStack({
  database: `contract_run_${process.pid}`,
  log: (line) => console.log(`[contract] ${line}`),
});
let failed = true;
try {
  const report = await runContractSuite(stack.url, stack.keys.find((k) => k.name === 'full')!.key);
  console.log(
    `${report.requests} requests, ${report.assertions} assertions, ${report.failures.length} failed; statuses ${JSON.stringify(report.statuses)}`,
  );
  for (const f of report.failures) console.log(`  ${f.request}\n    ${f.test}: ${f.message.slice(0, 300)}`);
  failed = report.failures.length > 0 || report.requests === 0;
} finally {
  await stack.dispose();
}
process.exit(failed ? 1 : 0);
