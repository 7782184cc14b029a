// Trends area: /v1/trends*, /v1/themes*, /v1/topics*.
import { createArea } from '../../shared/app';
import { register as registerArticles } from './articles';
import { register as registerChildren } from './children';
import { register as registerDetail } from './detail';
import { register as registerList } from './list';
import { register as registerParents } from './parents';
import { register as registerRollup } from './rollup';
import { register as registerThemeTopics } from './theme-topics';
import { register as registerThemes } from './themes';
import { register as registerTopicTrends } from './topic-trends';

export function trendsArea() {
  const area = createArea({ basePaths: ['/v1/trends', '/v1/themes', '/v1/topics'], auth: true });
  for (const register of [
    registerList, registerDetail, registerArticles, registerParents, registerChildren, registerThemes, registerThemeTopics, registerTopicTrends, registerRollup,
  ]) register(area);
  return area;
}
