// Sequential round trips, as the gateway sees them: each SQL or Redis request is recorded with the
// time it arrived and the time its answer was sent, and the critical path is the longest chain of
// requests each of which arrived after the previous one had been answered. Requests sent in one
// wave (a pipeline, Promise.all) overlap and count once; with a delay on every request (`rttMs`),
// overlap is certain, so the count is deterministic rather than timed.

export interface Span {
  start: number;
  end: number;
  /** What the request asked (the start of its SQL or its Redis commands), for `GET /stats?spans=1`. */
  label?: string;
}

/** Spans kept (the oldest go first): enough for a benchmark's window, bounded for a long run. */
const MAX_SPANS = 10_000;

export class TripLog {
  readonly #spans: Span[] = [];
  #mark: number | undefined;

  record(span: Span): void {
    this.#spans.push(span);
    if (this.#spans.length > MAX_SPANS) this.#spans.shift();
  }

  clear(): void {
    this.#spans.length = 0;
    this.#mark = undefined;
  }

  /**
   * The moment the caller received its answer (it calls right after). Requests still open then
   * are work after the answer (ctx.waitUntil: cache writes, limit reconciliation): not on its path.
   */
  mark(at: number): void {
    this.#mark = at;
  }

  /** The longest chain of strictly sequential requests among those recorded (and answered before the mark). */
  sequential(): number {
    return criticalPath(this.beforeMark());
  }

  /** The spans answered before the mark, in the order they arrived (to see which requests a path made). */
  beforeMark(): Span[] {
    const mark = this.#mark;
    return mark === undefined ? [...this.#spans] : this.#spans.filter((s) => s.end <= mark);
  }
}

/** Longest chain s1, s2, ... with s(i+1).start >= s(i).end (O(n^2): windows hold a few hundred spans). */
export function criticalPath(spans: Span[]): number {
  const sorted = [...spans].sort((a, b) => a.end - b.end);
  const depth: number[] = [];
  let best = 0;
  for (let i = 0; i < sorted.length; i++) {
    let before = 0;
    for (let j = 0; j < i; j++) if (sorted[j].end <= sorted[i].start && depth[j] > before) before = depth[j];
    depth[i] = before + 1;
    best = Math.max(best, depth[i]);
  }
  return best;
}

/** A short label for a request body: the start of each SQL statement, or the Redis command names. */
export function spanLabel(path: string, body: unknown): string {
  const short = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 120);
  if (path === '/sql') {
    const b = body as { query?: string; queries?: { query: string }[] } | undefined;
    if (b?.queries) return `sql batch: ${b.queries.map((q) => short(q.query)).join(' | ')}`;
    return `sql: ${short(b?.query ?? '')}`;
  }
  const commands = Array.isArray(body) && Array.isArray(body[0]) ? (body as unknown[][]) : [body as unknown[]];
  return `redis: ${commands.map((c) => (Array.isArray(c) ? c.slice(0, 2).join(' ') : '?')).join(' | ')}`;
}
