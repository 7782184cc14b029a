// Every feed route, registered at once: the all-in-one app (functions/app.ts).
import { buildFeed } from './area';
import * as feed from './feed';
import * as profile from './profile';
import * as live from './live';

export function feedArea() {
  return buildFeed([feed, profile, live]);
}
