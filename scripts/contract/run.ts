// The generated contract suite (docs/CONTRACT.md): Portman turns the served /openapi.json into a Postman
// collection with contract tests for every operation (2xx, content type, JSON body, response
// schema, required headers), built from the document's own examples with no per-route overrides;
// Newman runs it against a running API. Both are the npm packages, run offline.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');

export interface ContractFailure {
  request: string;
  test: string;
  message: string;
}
export interface ContractReport {
  requests: number;
  assertions: number;
  failures: ContractFailure[];
  statuses: Record<string, number>;
}

/** Runs a tool in `cwd` (Portman writes its working files under `./tmp` there). */
export function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(BIN, command), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    // Newman exits 1 when an assertion fails: the report says which; only a missing report is an error.
    child.on('close', () => resolve(output));
  });
}

interface NewmanExecution {
  item: { name: string };
  request: { method: string; url: { path: string[]; query?: { key: string; value: string; disabled?: boolean }[] } };
  response?: { code: number };
  assertions?: { assertion: string; error?: { message: string } }[];
}

/** Generates the suite from `base`'s served document (tests pass a doctored `doc`) and runs it with `apiKey`. */
export async function runContractSuite(base: URL, apiKey: string, served?: string): Promise<ContractReport> {
  const dir = await mkdtemp(join(tmpdir(), 'contract-'));
  try {
    const doc = served ?? (await (await fetch(new URL('/openapi.json', base))).text());
    await writeFile(join(dir, 'openapi.json'), doc);
    const collection = join(dir, 'collection.json');
    const origin = base.origin;
    const portman = await run(
      'portman',
      [
        '-l',
        join(dir, 'openapi.json'),
        '-b',
        origin,
        '-c',
        join(ROOT, 'scripts/contract/portman-config.json'),
        '-s',
        join(ROOT, 'scripts/contract/postman-config.json'),
        '-o',
        collection,
        '--envFile',
        join(dir, 'none.env'),
      ],
      dir,
    );
    const generated = await readFile(collection, 'utf8').catch(() => null);
    if (!generated) throw new Error(`portman wrote no collection:\n${portman.slice(-2000)}`);
    const report = join(dir, 'newman.json');
    const newman = await run(
      'newman',
      [
        'run',
        collection,
        '--env-var',
        `apiKey=${apiKey}`,
        '--env-var',
        `baseUrl=${origin}`,
        '--reporters',
        'json',
        '--reporter-json-export',
        report,
        '--timeout-request',
        '60000',
      ],
      dir,
    );
    const text = await readFile(report, 'utf8').catch(() => null);
    if (!text) throw new Error(`newman wrote no report:\n${newman.slice(-2000)}`);
    const { run: result } = JSON.parse(text) as { run: { executions: NewmanExecution[] } };
    const out: ContractReport = { requests: 0, assertions: 0, failures: [], statuses: {} };
    for (const execution of result.executions) {
      out.requests++;
      const status = String(execution.response?.code ?? 'none');
      out.statuses[status] = (out.statuses[status] ?? 0) + 1;
      const query = (execution.request.url.query ?? [])
        .filter((q) => !q.disabled)
        .map((q) => `${q.key}=${q.value}`)
        .join('&');
      const request = `${execution.request.method} /${execution.request.url.path.join('/')}${query ? `?${query}` : ''} -> ${status}`;
      for (const assertion of execution.assertions ?? []) {
        out.assertions++;
        if (assertion.error) out.failures.push({ request, test: assertion.assertion, message: assertion.error.message });
      }
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
