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
  profile?: ProfileSummary[];
}

/** reports/bench.json: the machine and every section measured so far. */
export interface BenchReport {
  quick: boolean;
  machine: { node: string; cpus: number; cpuModel: string; memoryGB: number; loadavg: number[] };
  sections: Record<string, SectionRecord>;
}
