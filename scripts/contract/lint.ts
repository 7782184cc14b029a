// Redocly (`recommended`) and Spectral (`spectral:oas`) over an OpenAPI document: every problem of
// any severity, so a test can ask for 0 errors and 0 warnings.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './run';

const HERE = import.meta.dirname;

export interface LintProblem {
  tool: 'redocly' | 'spectral';
  severity: string;
  rule: string;
  message: string;
  where: string;
}

export async function lintDocument(doc: string): Promise<LintProblem[]> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, doc);
    const problems: LintProblem[] = [];
    const redocly = await run('redocly', ['lint', file, '--config', join(HERE, 'redocly.yaml'), '--format', 'json'], dir);
    const start = redocly.indexOf('{');
    const parsed = JSON.parse(redocly.slice(start, redocly.lastIndexOf('}') + 1)) as {
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    for (const p of parsed.problems)
      problems.push({ tool: 'redocly', severity: p.severity, rule: p.ruleId, message: p.message, where: p.location[0]?.pointer ?? '' });
    const out = join(dir, 'spectral.json');
    const spectral = await run(
      'spectral',
      ['lint', file, '-r', join(HERE, 'spectral.yaml'), '-f', 'json', '-o', out, '--fail-severity', 'hint'],
      dir,
    );
    const results = JSON.parse(
      await readFile(out, 'utf8').catch(() => {
        throw new Error(`spectral wrote no report:\n${spectral.slice(-2000)}`);
      }),
    ) as { code: string; severity: number; message: string; path: string[] }[];
    for (const r of results)
      problems.push({
        tool: 'spectral',
        severity: ['error', 'warning', 'info', 'hint'][r.severity],
        rule: r.code,
        message: r.message,
        where: r.path.join('.'),
      });
    return problems;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
