// The local bucket of `npm start`, as the drop command and the live simulation write to it: a PUT to
// the all-in-one Worker's development-only route (functions/dev/drop.ts), which stores the object and
// sends the R2 event notification.
import { readFile } from 'node:fs/promises';

/** Where `npm start` writes the API's address (beside gateway.json). */
export const API_FILE = `${process.env.DATA_DIR ?? '.data'}/api.json`;

export interface Dropped {
  object: { key: string; eTag: string; size: number };
  eventTime: string;
}

export async function apiUrl(): Promise<string> {
  if (process.env.API_URL) return process.env.API_URL;
  try {
    return (JSON.parse(await readFile(API_FILE, 'utf8')) as { url: string }).url;
  } catch {
    throw new Error(`no running npm start (${API_FILE} missing): start it first, or set API_URL`);
  }
}

export async function putDrop(base: string, key: string, body: Buffer | string): Promise<Dropped> {
  const url = new URL('/__dev/drop', base);
  url.searchParams.set('key', key);
  const put = await fetch(url, { method: 'PUT', body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]) });
  const text = await put.text();
  if (put.status !== 201) throw new Error(`the local bucket refused ${key}: ${put.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Dropped;
}
