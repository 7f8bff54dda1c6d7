// autocannon 8 ships no types and @types/autocannon is not a dependency: the part the benchmark uses.
declare module 'autocannon' {
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    min: number;
    total: number;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Requests each connection sends in turn, over and over; each takes the options above as its defaults. */
    requests?: Array<{ method?: string; path?: string; headers?: Record<string, string>; body?: string }>;
    /** Called once per connection: its own headers, e.g. its own API key. */
    setupClient?: (client: { setHeaders(headers: Record<string, string>): void }) => void;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    '5xx': number;
    /** Answers by status code. */
    statusCodeStats?: Record<string, { count: number }>;
    duration: number;
  }
  export interface Instance {
    stop(): void;
  }
  function autocannon(opts: Options): Promise<Result>;
  function autocannon(opts: Options, done: (err: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
