// The client address a limit is keyed by. No imports: the key check reads it before any client exists.

/**
 * The client address as Cloudflare reports it (`CF-Connecting-IP`; no other header is trusted).
 * IPv6 clients are grouped by /64, the block one subscriber usually holds.
 */
export function clientIp(headers: Headers): string {
  const ip = headers.get('cf-connecting-ip')?.trim().toLowerCase();
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
