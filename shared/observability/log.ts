// Structured logs (README "Operating"): one JSON object per line on the console, which Workers Logs
// (wrangler.toml [observability]) indexes field by field. Levels filter by LOG_LEVEL (default info).

export type Level = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function levelOf(value: unknown): Level {
  return typeof value === 'string' && value in RANK ? (value as Level) : 'info';
}

/** Writes `{level, msg, ...fields}` as one line when `level` passes `threshold`. */
export function log(threshold: Level, level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  if (RANK[level] < RANK[threshold]) return;
  const line = JSON.stringify({ level, msg, time: new Date().toISOString(), ...fields });
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.log(line);
}

/** The message of anything thrown, without a stack (stacks go to the exception field of traces). */
export const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);
