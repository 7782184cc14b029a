// The fuzz loop over a running API: reads the served /openapi.json, harvests real ids from the
// operations that need none, then sends `requests` generated requests (fixed seed, bounded
// concurrency) spread evenly over every operation, and checks every response.
import { createChecker } from './check';
import { harvest, makeRequest, operationsOf, prng, sweep, type Keys, type Operation, type Pools, type Schema } from './generate';

export interface FuzzOptions {
  base: URL;
  keys: Keys;
  seed: number;
  requests: number;
  concurrency?: number;
  /** Business "now" of the data (dates are generated around it). */
  now: string;
  /** Defaults to the served document; tests pass a doctored one to see the checker fail. */
  doc?: Schema;
  /** Only these operationIds (default all). */
  only?: string[];
  hostileShare?: number;
}

export interface Failure {
  operation: string;
  request: string;
  mutation: string;
  status: number;
  problems: string[];
  body: string;
}

export interface FuzzReport {
  requests: number;
  /** Of which the systematic sweep. */
  swept: number;
  operations: number;
  seconds: number;
  byStatus: Record<string, number>;
  /** Requests per operationId. */
  perOperation: Record<string, number>;
  failures: Failure[];
}

/** A push stream (text/event-stream) does not end by itself: what its first second sends, then it is cut. */
async function firstSecond(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const cut = setTimeout(() => void reader.cancel().catch(() => undefined), 1_000);
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
  } catch {
  } finally {
    clearTimeout(cut);
  }
  return text;
}

async function send(base: URL, method: string, url: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(new URL(url, base), { method, headers, body, redirect: 'manual' });
  const stream = res.headers.get('content-type')?.startsWith('text/event-stream');
  return { status: res.status, headers: res.headers, text: stream ? await firstSecond(res) : await res.text() };
}

/** Real ids: GET every operation without path parameters once with the full key, recursively one level. */
async function harvestPools(base: URL, ops: Operation[], key: string): Promise<Pools> {
  const pools: Pools = new Map();
  const gets = ops.filter((op) => op.method === 'GET');
  for (const op of gets.filter((o) => !o.path.includes('{'))) {
    const res = await send(base, 'GET', op.path, { 'x-api-key': key });
    // Only JSON answers carry ids (the public widget's script and demo page do not).
    if (res.status === 200 && res.headers.get('content-type')?.includes('json')) harvest(pools, JSON.parse(res.text));
  }
  return pools;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const doc = options.doc ?? (JSON.parse((await send(options.base, 'GET', '/openapi.json', {})).text) as Schema);
  const ops = operationsOf(doc).filter((op) => !options.only || options.only.includes(op.operationId));
  if (!ops.length) throw new Error('no operations to fuzz');
  const now = Date.parse(options.now);
  const check = createChecker(doc, now);
  const pools = await harvestPools(options.base, ops, options.keys.full);
  const rng = prng(options.seed);
  // Generated up front, so the sequence depends on the seed only, not on response timing: first the
  // sweep (every parameter x every hostile value; skipped when hostileShare is 0), then random
  // requests spread evenly over the operations up to `requests` in all.
  const systematic = options.hostileShare === 0 ? [] : sweep(rng, ops, pools, options.keys, now).slice(0, options.requests);
  const requests = [
    ...systematic,
    ...Array.from({ length: options.requests - systematic.length }, (_, i) =>
      makeRequest(rng, ops[i % ops.length], pools, options.keys, now, options.hostileShare),
    ),
  ];
  const report: FuzzReport = {
    requests: 0,
    swept: systematic.length,
    operations: ops.length,
    seconds: 0,
    byStatus: {},
    perOperation: {},
    failures: [],
  };
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const req = requests[next++];
      let res: Awaited<ReturnType<typeof send>>;
      try {
        res = await send(options.base, req.method, req.url, req.headers, req.body);
      } catch (err) {
        res = { status: 599, headers: new Headers(), text: `request failed: ${(err as Error).message}` };
      }
      report.requests++;
      report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
      report.perOperation[req.op.operationId] = (report.perOperation[req.op.operationId] ?? 0) + 1;
      const problems = res.status === 599 ? ['no response'] : check(req.op, res);
      if (problems.length) {
        report.failures.push({
          operation: req.op.operationId,
          request: `${req.method} ${req.url.slice(0, 300)}`,
          mutation: req.mutation,
          status: res.status,
          problems,
          body: res.text.slice(0, 500),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

/** A short human summary: counts by status and the first failures. */
export function describeReport(report: FuzzReport, show = 10): string {
  const statuses = Object.entries(report.byStatus)
    .sort()
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  const lines = [
    `${report.requests} requests (${report.swept} of them the hostile sweep) over ${report.operations} operations in ${report.seconds.toFixed(1)} s (${statuses}); ${report.failures.length} failures`,
  ];
  for (const f of report.failures.slice(0, show))
    lines.push(
      `  ${f.operation} [${f.mutation}] ${f.request} -> ${f.status}: ${f.problems.join('; ')}\n    ${f.body.replace(/\s+/g, ' ').slice(0, 300)}`,
    );
  return lines.join('\n');
}
