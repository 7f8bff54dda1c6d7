/**
 * The table's rows from bench/segmentation's result (its owner may change the fields: all are
 * read as optional). A peer the machine lacks (scikit-image, OpenCV) still gets its row, saying
 * why it was not measured, instead of the section vanishing from the table.
 */
import type { Row } from './report.js';

export interface SegmentationOwnerResult {
  image?: { width?: number; height?: number; cells?: number };
  pipeline?: { withoutSplit?: { medianMs?: number }; withSplit?: { medianMs?: number } };
  peers?: Record<string, { peer?: string; version?: string; medianMs?: number; skipped?: string }>;
}

/**
 * The targets: at least 3x faster than scikit-image, and at least 0.7x OpenCV's speed (a mock needs
 * a fast segmenter, not the fastest: the kernels are plain JavaScript, without SIMD).
 */
function targetOf(
  peer: string,
): { target: string; met: (ours: number, peerMs: number) => boolean } | undefined {
  if (/skimage|scikit/i.test(peer))
    return { target: '>= 3x faster than scikit-image', met: (o, p) => p / o >= 3 };
  if (/opencv/i.test(peer))
    return { target: '>= 0.7x OpenCV (peer time / ours)', met: (o, p) => p / o >= 0.7 };
  return undefined;
}

export function segmentationRows(r: SegmentationOwnerResult): Row[] {
  const ours = r.pipeline?.withoutSplit?.medianMs;
  const split = r.pipeline?.withSplit?.medianMs;
  if (ours === undefined || !r.peers) return [];
  const size = `${r.image?.width}x${r.image?.height}, ${r.image?.cells} cells`;
  const metric = `threshold pipeline in-process, ${size} (bench/segmentation)`;
  const oursText = `${ours.toFixed(0)} ms; with watershed split ${split?.toFixed(0) ?? '?'} ms`;
  return Object.values(r.peers).map((p): Row => {
    const target = targetOf(String(p.peer));
    if (typeof p.medianMs !== 'number')
      return {
        section: 'Segmentation',
        metric,
        ours: oursText,
        peer: `${p.peer}: not measured (${p.skipped ?? 'no figure'})`,
        ratio: '',
        target: target ? `${target.target} (not judged: no peer figure)` : 'none',
        ok: null,
      };
    return {
      section: 'Segmentation',
      metric,
      ours: oursText,
      peer: `${p.peer} ${p.version ?? ''} ${p.medianMs.toFixed(0)} ms`.replace(/\s+/g, ' '),
      ratio: `${(p.medianMs / ours).toFixed(2)}x (peer time / ours)`,
      ...(target
        ? { target: target.target, ok: target.met(ours, p.medianMs) }
        : { target: 'none', ok: null }),
    };
  });
}
