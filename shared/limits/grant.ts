// The grant side of the edge limits (shared/limits/edge.ts): the slack of each window, what an
// isolate may admit on its own from an answer of Redis and its lease, and the per-key entry it keeps.
import type { LimitState } from './check';
import type { Batch } from './lease';

export const MINUTE_SLACK_SHARE = 0.1;
export const MONTH_SLACK_SHARE = 0.01;
export const MONTH_SLACK_MIN = 5;
/**
 * The least lease an isolate asks for; it asks for twice its demand when more (`wantOf`). Asking for
 * what it needs, not for all it could have, leaves the slack to the isolates that join while one that
 * went quiet (or was recycled) still holds its lease.
 */
export const WANT_MIN = 10;
/** Entries per isolate; past it the oldest is dropped, its quota batches handed to the isolate's next call. */
export const ENTRIES_MAX = 10_000;

/** What an isolate keeps per key (per client address for the public routes). */
export interface Entry {
  /** The last state Redis answered (null until it has). */
  state: LimitState | null;
  /** The key's quota counter (the month of the entry's creation; null without a project). */
  quotaKey: string | null;
  /** Wall time of that answer. */
  at: number;
  /** Requests this isolate may admit on its own before Redis confirms them (unconfirmed included). */
  grant: number;
  /** The lease the grant stands on, and until when it holds (wall time). */
  lease: number;
  leaseUntil: number;
  /** Admitted here and not yet confirmed by Redis (unsent + in flight). */
  unconfirmed: number;
  /** Admitted here, not yet sent (minute hits; `owedMonth` of them spend quota, negative for refunds). */
  owed: number;
  owedMonth: number;
  /** Quota batches of calls that failed (they may have run): sent again under their own tokens. */
  retry: Batch[];
  /** The Redis call in flight for this key (a flush or a synchronous check): at most one. */
  busy: Promise<unknown> | null;
  /** The most requests it had to admit at once before Redis confirmed them; halved at each call. */
  demand: number;
}

/** A key's entry before Redis has answered for it. */
export function newEntry(quotaKey: string | null): Entry {
  return {
    state: null,
    quotaKey,
    at: 0,
    grant: 0,
    lease: 0,
    leaseUntil: 0,
    unconfirmed: 0,
    owed: 0,
    owedMonth: 0,
    retry: [],
    busy: null,
    demand: 0,
  };
}

/** The lease an isolate asks for (shared/limits/lease.ts `want`). */
export const wantOf = (entry: Entry) => Math.max(WANT_MIN, 2 * entry.demand);

/** The slack of each window: what all isolates and keys together may admit beyond the limit. */
export function slackOf(state: LimitState): { minute: number; month: number } {
  return {
    minute: MINUTE_SLACK_SHARE * state.minute.limit,
    month: state.month ? Math.max(MONTH_SLACK_SHARE * state.month.limit, MONTH_SLACK_MIN) : 0,
  };
}

/** The grant of an answer from Redis: the lease, within what Redis said remains on both windows. */
export function grantOf(state: LimitState, lease: number): number {
  if (state.minute.mode !== 'redis' || !state.minute.success || (state.month && !state.month.success)) return 0;
  const slack = slackOf(state);
  const minute = Math.min(state.minute.remaining, slack.minute);
  const month = state.month ? Math.min(state.month.limit - state.month.used, slack.month) : Infinity;
  return Math.max(0, Math.floor(Math.min(minute, month, lease)));
}
