// Every articles route, registered at once: the all-in-one app (functions/app.ts).
import { buildArticles } from './area';
import * as list from './list';
import * as article from './article';
import * as categories from './categories';

export function articlesArea() {
  return buildArticles([list, article, categories]);
}
