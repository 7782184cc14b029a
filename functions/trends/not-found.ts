// The one 404 of the area: an unknown trend and one the key may not see answer identically.
import { notFound } from '../../shared/http/errors';

export const trendNotFound = (id: string) => notFound(`Trend '${id}' not found`);
