// The reference of `npm run bench -- startup` for a first request that reads data: the minimal
// Worker (minimal.ts) whose route makes the one PostgreSQL round trip such an answer cannot go
// without (a fresh public check's), through the driver the area Workers use, built the same way.
import { OpenAPIHono } from '@hono/zod-openapi';
import { neon, neonConfig } from '@neondatabase/serverless';
import { helloRoute } from './route';

const app = new OpenAPIHono<{ Bindings: { DATABASE_URL: string; NEON_HTTP_ENDPOINT?: string } }>();
app.openapi(helloRoute, async (c) => {
  if (c.env.NEON_HTTP_ENDPOINT) neonConfig.fetchEndpoint = c.env.NEON_HTTP_ENDPOINT;
  const [row] = await neon(c.env.DATABASE_URL).query('SELECT $1::text AS message', [`hello ${c.req.valid('param').name}`]);
  return c.json({ message: String(row!.message) }, 200);
});

export default app;
