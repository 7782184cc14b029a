// RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers).
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
