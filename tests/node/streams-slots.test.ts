// A stream's slot (shared/streams/slots.ts) over a Redis that fails some calls: at a stream's end the
// slot is given back even when the first tries fail (streams whose clients went away together end
// together, and under load their releases met the Redis budget); a refused opening took nothing, so it
// gives nothing back and answers at once.
import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../../shared/auth/types';
import type { Store } from '../../shared/db/redis';
import { takeSlot } from '../../shared/streams/slots';

/** A store whose slot script finds `open` slots held (of a cap of 1: Start) and whose first `failures` ZREMs fail. */
function flakyStore(open: number, failures: number) {
  const zrems: string[] = [];
  let left = failures;
  const store = {
    prefix: '',
    key: (...parts: string[]) => parts.join(':'),
    redis: {
      eval: async () => (open < 1 ? [1, open + 1] : [0, open]),
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
    const { store, zrems } = flakyStore(0, 2);
    const release = await takeSlot(store, auth, 'stream-1');
    await release();
    expect(zrems).toEqual(['stream-1', 'stream-1', 'stream-1']);
  });

  it('refuses the opening past the cap at once, with nothing to give back', async () => {
    const { store, zrems } = flakyStore(1, 5);
    const started = Date.now();
    await expect(takeSlot(store, auth, 'stream-2')).rejects.toMatchObject({ status: 429 });
    expect(zrems).toEqual([]);
    expect(Date.now() - started).toBeLessThan(200);
  });
});
