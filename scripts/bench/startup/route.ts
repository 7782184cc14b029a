// The one route of the minimal reference Workers (minimal.ts, minimal-sql.ts).
import { createRoute, z } from '@hono/zod-openapi';

export const helloRoute = createRoute({
  method: 'get',
  path: '/hello/{name}',
  request: { params: z.object({ name: z.string().min(1) }) },
  responses: {
    200: { description: 'A greeting', content: { 'application/json': { schema: z.object({ message: z.string() }) } } },
  },
});
