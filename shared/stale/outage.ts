// Which answers are a dependency outage (the 503 of shared/errors.ts onError), so that only those,
// never a `computing` 503 or any answer the database gave, are replaced by a stale copy.
const outages = new WeakSet<Request>();

export const markOutage = (request: Request) => void outages.add(request);
export const wasOutage = (request: Request) => outages.has(request);
