// The single source of "now": tests and demos pin it with the NOW binding.
export interface Clock {
  now(): Date;
}

export function createClock(fixed?: string): Clock {
  if (fixed) {
    const at = new Date(fixed);
    return { now: () => new Date(at) };
  }
  return { now: () => new Date() };
}
