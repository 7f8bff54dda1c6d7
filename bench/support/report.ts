/** What every section returns, the report they make up, and the small formatting helpers the table uses. */
import type { ProfileSummary } from './profile-summary.js';

export interface Row {
  section: string;
  metric: string;
  /** Our figure, with its unit. */
  ours: string;
  /** The peer measured in the same run, named, with its figure. */
  peer: string;
  /** ours / peer (or the overhead), the number the target is about. */
  ratio: string;
  target: string;
  /** true: met, false: missed, null: no target. */
  ok: boolean | null;
  /** Why a missed target was missed, when the section knows (docs/benchmarks.md prints it). */
  why?: string;
}

export interface SectionResult {
  rows: Row[];
  /** Raw numbers for reports/bench.json. */
  data: Record<string, unknown>;
  /** Sentences for the README's limits paragraph. */
  notes?: string[];
}

export interface BenchContext {
  quick: boolean;
  profile: boolean;
  tmpDir: string;
  log(message: string): void;
}

export const fmt = {
  mb: (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`,
  ms: (ms: number) => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`),
  rps: (n: number) => `${Math.round(n).toLocaleString('en-US')} req/s`,
  mbps: (bytesPerSecond: number) => `${(bytesPerSecond / 1024 / 1024).toFixed(0)} MB/s`,
  x: (ratio: number) => `${ratio.toFixed(2)}x`,
  pct: (fraction: number) => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(0)}%`,
};

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** One section's figures in reports/bench.json. */
export interface SectionRecord {
  measuredAt: string;
  seconds: number;
  rows: Row[];
  data: Record<string, unknown>;
  error?: string;
  /** Why the section measured nothing though it ran (a peer or a tool missing). */
  skipped?: string;
  profile?: ProfileSummary[];
  /** Read back from the table docs/benchmarks.md shows (figures only, no raw data). */
  committed?: boolean;
  /** The Limits paragraph's bullets this section's figures made, as committed (when its data is not at hand). */
  limitNotes?: string[];
}

/** reports/bench.json: the machine and every section measured so far. */
export interface BenchReport {
  quick: boolean;
  machine: { node: string; cpus: number; cpuModel: string; memoryGB: number; loadavg: number[] };
  sections: Record<string, SectionRecord>;
}

/** The value below which `p` percent of `values` fall (nearest rank); 0 for no values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
