// Every trends route, registered at once: the all-in-one app (functions/app.ts).
import { buildTrends } from './area';
import * as list from './list';
import * as detail from './detail';
import * as articles from './articles';
import * as parents from './parents';
import * as children from './children';
import * as themes from './themes';
import * as themeTopics from './theme-topics';
import * as topicTrends from './topic-trends';
import * as rollup from './rollup';

export function trendsArea() {
  return buildTrends([list, detail, articles, parents, children, themes, themeTopics, topicTrends, rollup]);
}
