// The OpenAPI contract pieces both stream operations share: the text/event-stream answer (its event
// names, an example, and the JSON schema of each event's `data:`), the resume header and `since_minutes`.
import { z } from '@hono/zod-openapi';
import { HEARTBEAT_MS, RETRY_MS } from './sse';

export const StreamEndSchema = z
  .object({
    reason: z.enum(['max_duration', 'key_revoked', 'plan_changed', 'quota_exceeded', 'error']),
    message: z.string().openapi({ example: 'Streams end after 60 minutes: reconnect with Last-Event-ID to continue.' }),
  })
  .openapi('StreamEnd', { description: 'The last event of a stream the server ends: why, and what to do.' });

export const LastEventIdHeader = z.object({
  'last-event-id': z
    .string()
    .max(2000)
    .optional()
    .openapi({
      description:
        'Resume: the `id:` of the last event received (EventSource and the `eventsource` npm client send it on reconnect). The stream continues exactly ' +
        'after that event. A token of another key, query or route, altered or older than 1440 minutes, is 400.',
      example: '',
    }),
});

export const sinceMinutes = (what: string) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(1440)
    .default(0)
    .refine((v) => v === 0 || v >= 5, 'Expected 0 or 5-1440')
    .openapi({ description: `${what}: 0 (default: only what is new from now) or 5-1440. Ignored on resume.`, example: 0, type: 'integer' });

export const maxSeconds = z.coerce.number().int().min(1).max(3600).default(3600).openapi({
  description:
    'End the stream after this many seconds (1-3600; default and most 3600): for clients whose runtime bounds a connection. It ends with `event: end`; resume with Last-Event-ID.',
  example: 2,
  type: 'integer',
});

/**
 * The 200 answer of a stream. The body is text; its media type's schema is that of each event's `data:`
 * by event name (`events`: `{ <event>: <data schema>, end: StreamEnd }`), the one place OpenAPI 3.1 lets
 * a tool read them, with the wire format in the description and the example.
 */
export function streamResponse(event: string, events: z.ZodType) {
  return {
    description:
      `A Server-Sent Events stream: \`retry: ${RETRY_MS}\`, then events \`id: <resume token>\`, \`event: ${event}\`, \`data: <one line of JSON>\`, ` +
      `a comment line (\`: heartbeat ...\`) every ${HEARTBEAT_MS / 1000} s, and \`event: end\` when the server ends it. The schema is not the ` +
      "body's: it gives the JSON of each event's `data:` by event name. On the wire:\n\n" +
      `\`\`\`\nretry: ${RETRY_MS}\n\nid: eyJ2IjoyfQ.c2ln\nevent: ${event}\ndata: {...}\n\n: heartbeat 2026-03-01T12:00:15+00:00\n\`\`\``,
    content: {
      // No media-type example: the schema is the events' data, not the text (the wire format is in the description).
      'text/event-stream': { schema: events },
    },
  };
}
