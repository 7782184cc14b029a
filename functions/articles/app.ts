// Articles area: /v1/articles (list, detail) and /v1/analytics/* (category analytics).
import { createArea } from '../../shared/app';
import { register as registerArticle } from './article';
import { register as registerCategories } from './categories';
import { register as registerList } from './list';

export function articlesArea() {
  const area = createArea({ basePaths: ['/v1/articles', '/v1/analytics'], auth: true });
  for (const register of [registerList, registerArticle, registerCategories]) register(area);
  return area;
}
