// Small statistics and table printing shared by the benchmarks: medians, p95, ratios.

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: p95 of 500 samples is the 475th smallest.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

export const median = (values: readonly number[]) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export const p95 = (values: readonly number[]) => quantile(values, 0.95);

/** `a / b` printed as `12.3x`. */
export const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.POSITIVE_INFINITY);

/** Thousands separated from 1000 on; below, `digits` decimals (integers plain when not given). */
export function fmt(n: number, digits?: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000 || (digits === undefined && Number.isInteger(n))) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(digits ?? 1);
}

export const fmtRatio = (r: number) => `${fmt(r, r < 10 ? 2 : 1)}x`;

/** Times `fn` in milliseconds. */
export async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** Prints a Markdown table (so results paste straight into docs/BENCHMARKS.md). */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(headers), sep, ...cells.map(line)].join('\n');
}

export function log(line: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}
