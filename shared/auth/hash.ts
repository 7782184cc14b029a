// SHA-256 as hex: key hashes and cache keys. No imports: the middleware that only hashes (the stale
// tier, edge answers) does not load the key lookup's drizzle tables (docs/PERFORMANCE.md).

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
