// SHA-256: key hashes, cache keys and ETags. No imports: the middleware that only hashes (the stale
// tier, edge answers) does not load the key lookup's drizzle tables (docs/PERFORMANCE.md).

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

export async function sha256(data: ArrayBuffer | string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', typeof data === 'string' ? new TextEncoder().encode(data) : data));
}

export const sha256Hex = async (data: ArrayBuffer | string): Promise<string> => hex(await sha256(data));

/** The first 128 bits of the SHA-256, in hex (ETags). */
export const sha256Hex128 = async (data: ArrayBuffer | string): Promise<string> => hex((await sha256(data)).slice(0, 16));
