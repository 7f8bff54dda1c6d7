/** Reads V8 .cpuprofile files (node --cpu-prof) and answers where the self time went. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './processes.js';

interface CpuProfile {
  nodes: Array<{
    id: number;
    hitCount?: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
}

export interface ProfileSummary {
  file: string;
  durationMs: number;
  /** Busy share of the thread: samples that were neither (idle) nor piscina's Atomics.wait loop. */
  busyPercent: number;
  topFunctions: Array<{ name: string; percent: number }>;
  byModule: Array<{ name: string; percent: number }>;
}

function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith('node:')) return 'node internals';
  const rel = url.replace(/^file:\/\//, '');
  return rel.startsWith(repoRoot) ? path.relative(repoRoot, rel) : rel;
}

export function summarizeProfiles(dir: string, top = 12): ProfileSummary[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return [];
  }
  return files.map((f) => {
    const profile = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CpuProfile;
    const total = profile.samples.length || 1;
    const fnHits = new Map<string, number>();
    const modHits = new Map<string, number>();
    let idle = 0;
    for (const n of profile.nodes) {
      const hits = n.hitCount ?? 0;
      if (!hits) continue;
      const { functionName, url, lineNumber } = n.callFrame;
      // piscina's worker threads block in Atomics.wait between tasks: waiting, not work.
      if (functionName === '(idle)' || functionName === 'atomicsWaitLoop') idle += hits;
      const mod = moduleOf(url, functionName);
      const name = `${functionName || '(anonymous)'} ${url ? `${mod}:${lineNumber + 1}` : ''}`.trim();
      fnHits.set(name, (fnHits.get(name) ?? 0) + hits);
      modHits.set(mod, (modHits.get(mod) ?? 0) + hits);
    }
    const rank = (m: Map<string, number>) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([name, hits]) => ({ name, percent: Math.round((hits / total) * 1000) / 10 }));
    return {
      file: f,
      durationMs: (profile.endTime - profile.startTime) / 1000,
      busyPercent: Math.round(((total - idle) / total) * 1000) / 10,
      topFunctions: rank(fnHits),
      byModule: rank(modHits),
    };
  });
}
