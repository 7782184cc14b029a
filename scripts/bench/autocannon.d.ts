// autocannon ships no types; the part the load benchmark uses.
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
    min: number;
    max: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    statusCodeStats?: Record<string, { count: number }>;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: Array<Record<string, unknown>>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
