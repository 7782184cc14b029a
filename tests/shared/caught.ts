// Resolves to the rejection of a promise (its error, with driver fields such as `code`); throws if
// the promise resolves. Shared by the Worker and Node tests.
export async function caught(p: Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, any>;
  }
  throw new Error('expected a rejection');
}
