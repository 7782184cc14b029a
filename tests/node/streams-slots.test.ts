// A stream's slot (shared/streams/slots.ts) over a Redis that fails some calls: at a stream's end the
// slot is given back even when the first tries fail (streams whose clients went away together end
// together, and under load their releases met the Redis budget); a refused opening gives its slot back
// once and answers at once.
import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../../shared/auth/types';
import type { Store } from '../../shared/db/redis';
import { takeSlot } from '../../shared/streams/slots';

/** A store whose pipeline reports `open` slots taken and whose first `failures` ZREMs fail. */
function flakyStore(open: number, failures: number) {
  const zrems: string[] = [];
  let left = failures;
  const store = {
    prefix: '',
    key: (...parts: string[]) => parts.join(':'),
    redis: {
      pipeline: () => ({
        zremrangebyscore() {},
        zadd() {},
        zcard() {},
        pexpire() {},
        exec: async () => [0, 1, open, 1],
      }),
      zrem: async (_key: string, id: string) => {
        zrems.push(id);
        if (left-- > 0) throw new Error('The operation was aborted due to timeout');
        return 1;
      },
    },
  } as unknown as Store;
  return { store, zrems };
}

const auth = { keyId: 'key-1', plan: 'start' } as AuthContext;

describe('stream slots', () => {
  it('gives the slot back at the stream end although the first two tries fail', async () => {
    const { store, zrems } = flakyStore(1, 2);
    const release = await takeSlot(store, auth, 'stream-1');
    await release();
    expect(zrems).toEqual(['stream-1', 'stream-1', 'stream-1']);
  });

  it('refuses the opening past the cap after one try to give the slot back', async () => {
    const { store, zrems } = flakyStore(2, 5);
    const started = Date.now();
    await expect(takeSlot(store, auth, 'stream-2')).rejects.toMatchObject({ status: 429 });
    expect(zrems).toEqual(['stream-2']);
    expect(Date.now() - started).toBeLessThan(200);
  });
});
