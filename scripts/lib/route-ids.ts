// Ids the id routes need (a trend, a theme and one of its topics, an entity, an article, a feed URL),
// read through the API itself as a caller would: the distance and routes benches and the round-trip
// pins ask the same questions of whatever data they run on. No Node APIs (the pins run in workerd).

export interface RouteIds {
  trend: string;
  theme: string;
  topic: string;
  entity: string;
  article: string;
  urlId: string;
}

/** `get` answers a keyed GET's JSON body. */
export async function discoverRouteIds(get: (path: string) => Promise<any>): Promise<RouteIds> {
  const first = (o: any) => (Array.isArray(o) ? o : (o.items ?? o.themes ?? o.topics ?? o.entities ?? o.articles ?? o.trends))[0];
  const theme = first(await get('/v1/themes'));
  return {
    trend: first(await get('/v1/trends?limit=1')).id,
    theme: theme.id,
    topic: first(await get(`/v1/themes/${theme.id}/topics`)).id,
    entity: first(await get('/v1/entities?limit=1')).name,
    article: first(await get('/v1/articles?limit=1')).id,
    urlId: first(await get('/v2/feed?limit=1')).url_id,
  };
}
