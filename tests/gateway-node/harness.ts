// A tiny check runner for the gateway smoke script (plain Node, no vitest).
import assert from 'node:assert/strict';

export { assert };

let passed = 0;
let failed = 0;

export async function check(name: string, fn: () => Promise<void>): Promise<void> {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`  ok   ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    failed++;
    console.log(`  FAIL ${name}\n       ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
}

export function summary(): number {
  console.log(`${passed} passed, ${failed} failed`);
  return failed;
}

export async function rejects(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
