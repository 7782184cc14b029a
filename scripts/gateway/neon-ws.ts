// Neon's WebSocket proxy (GET /v1 with Upgrade): the driver opens
// ws://HOST/v1?address=dbhost:5432 and speaks the raw Postgres wire protocol in binary frames;
// the client does its own startup and authentication through the relay.
// The `address` the client names is ignored on purpose: the relay only ever connects to the
// configured backend, so it cannot be used to reach other hosts.
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type { RawData, WebSocket, WebSocketServer as WebSocketServerType } from 'ws';

// Through Node's require: under vitest's Worker project the bundler conditions would pick
// ws's browser build, which has no server.
const { WebSocketServer } = createRequire(import.meta.url)('ws') as { WebSocketServer: typeof WebSocketServerType };

export interface WsRelay {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** `name`: told each backend connection's local port and who it serves (for the PGlite watchdog's log lines). */
export function createWsRelay(
  target: () => { host: string; port: number },
  log: (line: string) => void,
  name: (localPort: number, client: string) => void = () => undefined,
): WsRelay {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const open = new Set<{ ws: WebSocket; tcp: Socket }>();

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const { host, port } = target();
    const tcp = connect({ host, port, noDelay: true });
    const pair = { ws, tcp };
    open.add(pair);
    const pending: Buffer[] = []; // frames that arrive before the TCP connection is up
    let connected = false;

    tcp.on('connect', () => {
      connected = true;
      if (tcp.localPort) name(tcp.localPort, `WebSocket /v1 from ${req.socket.remoteAddress}:${req.socket.remotePort}`);
      for (const b of pending.splice(0)) tcp.write(b);
    });
    ws.on('message', (data) => {
      const b = toBuffer(data);
      if (connected) tcp.write(b);
      else pending.push(b);
    });
    tcp.on('data', (chunk) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(chunk, { binary: true });
      // Backpressure: a slow client must not make the gateway buffer a huge result set.
      if (ws.bufferedAmount > 8 * 1024 * 1024) {
        tcp.pause();
        const resume = setInterval(() => {
          if (ws.readyState !== ws.OPEN || ws.bufferedAmount < 1024 * 1024) {
            clearInterval(resume);
            tcp.resume();
          }
        }, 5);
      }
    });

    const finish = (why?: string) => {
      if (!open.delete(pair)) return;
      if (why) log(`ws relay: ${why}`);
      tcp.destroy();
      if (ws.readyState !== ws.OPEN && ws.readyState !== ws.CONNECTING) return;
      // End without a close handshake once everything sent has left (e.g. a final FATAL message):
      // a server-initiated clean close makes workerd raise "Network connection lost" on the client.
      const drained = setInterval(() => {
        if (ws.bufferedAmount > 0 && ws.readyState === ws.OPEN) return;
        clearInterval(drained);
        ws.terminate();
      }, 2);
    };
    ws.on('close', () => finish());
    ws.on('error', (err) => finish(`client error: ${err.message}`));
    tcp.on('close', () => finish());
    tcp.on('error', (err) => finish(`backend error: ${err.message}`));
  });

  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    close() {
      for (const { ws, tcp } of open) {
        tcp.destroy();
        ws.terminate();
      }
      open.clear();
      wss.close();
    },
  };
}
