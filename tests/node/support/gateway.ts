// Helpers for Node tests that drive the local gateway (scripts/gateway) through the real clients.
import { createRequire } from 'node:module';
import { neonConfig } from '@neondatabase/serverless';
import type WebSocketClass from 'ws';
import type { Gateway } from '../../../scripts/gateway/index';
import { ReplyError, Status, type Reply } from '../../../scripts/gateway/redis-types';
export { caught } from '../../shared/caught';

/**
 * ws's Node build, through Node's require: vite's resolve conditions in this repo can pick ws's
 * browser build (which throws "ws does not work in the browser") for `import ws from 'ws'`.
 */
export const NodeWebSocket = createRequire(import.meta.url)('ws') as typeof WebSocketClass;

/** The neonConfig a client of this gateway needs (a Worker sets the same, minus the constructor). */
export function configureNeon(gw: Pick<Gateway, 'neonHttpUrl' | 'neonWsProxy'>): void {
  neonConfig.fetchEndpoint = gw.neonHttpUrl;
  neonConfig.wsProxy = () => gw.neonWsProxy;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
  neonConfig.webSocketConstructor = NodeWebSocket;
}

/** A backend reply as comparable plain data: +status, -error, bulk strings as text. */
export function showReply(r: Reply): unknown {
  // EXECABORT: the gateway appends the queuing error's text; compare the Redis part only.
  if (r instanceof ReplyError) return `-${r.message.replace(/^(EXECABORT [^:]*):.*/, '$1')}`;
  if (r instanceof Status) return `+${r.value}`;
  if (Buffer.isBuffer(r)) return r.toString('utf8');
  if (Array.isArray(r)) return r.map(showReply);
  return r;
}

/** POST to the gateway's Upstash REST endpoint without a client: the wire format itself. */
export async function upstashRaw(
  gw: Pick<Gateway, 'upstashUrl' | 'upstashToken'>,
  body: unknown,
  { path = '', headers = {} }: { path?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${gw.upstashUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.upstashToken}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}
