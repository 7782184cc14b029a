// The per-isolate fallback limiter used while Redis is unreachable: the same per-minute limit,
// counted in this isolate only, so an outage never opens an unlimited bypass.
import { namespaces } from '../cache/namespaces';

const WINDOW_MS = 60_000;
/** Hits of the last minute per subject (at most 50,000 subjects: past it the oldest goes). */
const hits = namespaces.localLimits.held;

export interface LocalDecision {
  success: boolean;
  remaining: number;
  reset: number;
}

export function limitLocally(id: string, limit: number, nowMs = Date.now()): LocalDecision {
  const recent = (hits.get(id) ?? []).filter((t) => t > nowMs - WINDOW_MS);
  const success = recent.length < limit;
  if (success) recent.push(nowMs);
  hits.set(id, recent);
  return { success, remaining: Math.max(0, limit - recent.length), reset: (recent[0] ?? nowMs) + WINDOW_MS };
}

export function forgetLocalLimits(): void {
  hits.clear();
}
