// The reference of `npm run bench -- startup`: a minimal @hono/zod-openapi Worker with one route,
// built and profiled exactly as the area Workers are.
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';

const app = new OpenAPIHono();
const route = createRoute({
  method: 'get',
  path: '/hello/{name}',
  request: { params: z.object({ name: z.string().min(1) }) },
  responses: {
    200: { description: 'A greeting', content: { 'application/json': { schema: z.object({ message: z.string() }) } } },
  },
});
app.openapi(route, (c) => c.json({ message: `hello ${c.req.valid('param').name}` }, 200));

export default app;
