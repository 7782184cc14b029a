// The key a request presents: `X-API-Key`, else `Authorization: Bearer <key>` (never the query).
// No runtime imports: the deployed Workers' routers (shared/http/lazy-area.ts) read it at startup cost.

export function presentedKey(headers: { header(name: string): string | undefined }): string | undefined {
  const direct = headers.header('x-api-key')?.trim();
  if (direct) return direct;
  const authorization = headers.header('authorization')?.trim();
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}
