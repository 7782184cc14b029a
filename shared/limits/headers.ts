// RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers).

/** What the API document says about the limits and their headers (the bounds of shared/limits/edge.ts). */
export const LIMITS_NOTE =
  'Every keyed answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers; ' +
  '`RateLimit` names the policy nearest to exhaustion). Limits are decided at the edge and counted in the ' +
  'background: all locations together admit at most 10% more than the per-minute limit and at most ' +
  'max(1%, 5 requests) more than the monthly quota, every admitted request is counted, and the headers ' +
  'show the state the answering location knows. Projects in `strict` limits mode are checked exactly on every request.';
export interface PolicyState {
  name: string;
  quota: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

export function policyHeader(policies: PolicyState[]): string {
  return policies.map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`).join(', ');
}

/** The policy nearest to exhaustion (smallest share remaining) speaks for the response. */
export function rateLimitHeader(policies: PolicyState[]): string {
  const nearest = [...policies].sort((a, b) => a.remaining / a.quota - b.remaining / b.quota)[0];
  return `"${nearest.name}";r=${nearest.remaining};t=${nearest.resetSeconds}`;
}
