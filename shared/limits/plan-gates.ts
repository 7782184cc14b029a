// Plan gates every keyed request passes before its limits (README "Plans and limits"): the
// subscription, the door's switch (API or MCP) and the markets of the path. A refusal reads the auth
// version as any other answer does (shared/auth/version.ts): a key refused from the isolate's cache
// is read again once the version changed, so switching a project back on reaches it within 2 s.
import type { Context, MiddlewareHandler } from 'hono';
import { reauthenticate } from '../auth/middleware';
import { isOutdated } from '../auth/keys';
import type { AuthContext } from '../auth/types';
import { authVersionFresh, authVersionKey, observeAuthVersion } from '../auth/version';
import type { Env } from '../env';
import { coded } from '../http/errors';
import { assertMarketsEntitled } from '../scope/markets-entitled';
import { mcpPostOf, type Channel } from './channel';

/** Throws the refusal of `auth` on this request, if any. */
export function assertGates(c: Context<Env>, auth: AuthContext, channel: Channel): void {
  if (auth.subscriptionStatus !== 'active' && auth.subscriptionStatus !== 'trialing') {
    throw coded(
      'subscription_inactive',
      `The project subscription is ${auth.subscriptionStatus.replace('_', ' ')}; renew it to use the API.`,
    );
  }
  if (channel === 'mcp' || mcpPostOf(c.env)) {
    if (!auth.mcpEnabled) throw coded('mcp_not_in_plan', 'MCP access is switched off for this project.');
  } else if (!auth.apiEnabled) {
    throw coded('api_not_in_plan', 'API access is switched off for this project.');
  }
  assertMarketsEntitled(c.req.path, auth);
}

/**
 * True when the request's key was read again: its auth version read is over AUTH_VERSION_FRESH_MS
 * old, Redis says it changed, and the key came from the isolate's cache before the change. One
 * Redis call (INCRBY 0 reads the version), at most once a second per isolate; none while Redis is down.
 */
async function readAgain(c: Context<Env>): Promise<boolean> {
  const { store } = c.var;
  if (authVersionFresh(store)) return false;
  const version = await store.redis.incrby(authVersionKey(store), 0).catch(() => undefined);
  if (version === undefined) return false;
  observeAuthVersion(store, version);
  if (!isOutdated(c.var.auth)) return false;
  await reauthenticate(c);
  return true;
}

/** `channel`: the door this area is; an MCP tool call's inner request is recognised by its env. */
export function planGates(channel: Channel = 'rest'): MiddlewareHandler<Env> {
  return async function planGates(c, next) {
    try {
      assertGates(c, c.var.auth, channel);
    } catch (refusal) {
      if (!(await readAgain(c))) throw refusal;
      assertGates(c, c.var.auth, channel);
    }
    await next();
  };
}
