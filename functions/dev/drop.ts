// `npm start` only (ENVIRONMENT=development): the local stand-in for what the crawler and R2 do in
// production. `PUT /__dev/drop?key=NAME` writes the body into the local bucket (miniflare, persisted
// under .data/) and sends the R2 event notification the real bucket would send to the queue
// `discovery-ingest` (miniflare has no S3 endpoint and no event notifications); the queue's consumer
// is then the same one deployed Workers run. Not served by any deployed Worker.
import type { Bindings } from '../../shared/env';
import type { ObjectNotification } from '../jobs/ingest';

export const DEV_DROP_PATH = '/__dev/drop';

const KEY = /^[\w.!*'()/-]{1,512}$/;

export async function devDrop(request: Request, env: Bindings): Promise<Response> {
  const bucket = env.INGEST_BUCKET as R2Bucket | undefined;
  if (env.ENVIRONMENT !== 'development' || !bucket || !env.INGEST_QUEUE) return Response.json({ detail: 'Not Found' }, { status: 404 });
  if (request.method !== 'PUT')
    return Response.json({ detail: 'Use PUT with the file as the body' }, { status: 405, headers: { Allow: 'PUT' } });
  const key = new URL(request.url).searchParams.get('key') ?? '';
  if (!KEY.test(key) || key.includes('..')) return Response.json({ detail: `key must match ${KEY.source} without '..'` }, { status: 400 });
  if (!request.body) return Response.json({ detail: 'the file is the request body' }, { status: 400 });
  const object = await bucket.put(key, request.body);
  if (!object) return Response.json({ detail: 'the bucket refused the object' }, { status: 500 });
  const notification: ObjectNotification = {
    account: 'local',
    action: 'PutObject',
    bucket: 'discovery-ingest',
    object: { key, size: object.size, eTag: object.etag },
    eventTime: object.uploaded.toISOString(),
  };
  await env.INGEST_QUEUE.send(notification);
  return Response.json(notification, { status: 201 });
}
