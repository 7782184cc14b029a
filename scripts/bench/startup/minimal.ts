// The reference of `npm run bench -- startup`: a minimal @hono/zod-openapi Worker with one route,
// built and profiled exactly as the area Workers are.
import { OpenAPIHono } from '@hono/zod-openapi';
import { helloRoute } from './route';

const app = new OpenAPIHono();
app.openapi(helloRoute, (c) => c.json({ message: `hello ${c.req.valid('param').name}` }, 200));

export default app;
