import { describe, expect, it } from 'vitest';
import { segmentationRows } from './segmentation-rows.js';

const pipeline = { withoutSplit: { medianMs: 100 }, withSplit: { medianMs: 300 } };

describe('segmentationRows', () => {
  it('judges each peer against its target', () => {
    const rows = segmentationRows({
      pipeline,
      peers: {
        opencv: { peer: 'opencv_peer.py', medianMs: 65 },
        opencvSlower: { peer: 'opencv (second run)', medianMs: 75 },
        skimage: { peer: 'skimage_peer.py', medianMs: 400 },
      },
    });
    expect(rows.map((r) => [r.target, r.ok])).toEqual([
      ['>= 0.7x OpenCV (peer time / ours)', false],
      ['>= 0.7x OpenCV (peer time / ours)', true],
      ['>= 3x faster than scikit-image', true],
    ]);
  });

  it('keeps a row for a peer this machine lacks, saying why it was not measured', () => {
    const [row] = segmentationRows({
      pipeline,
      peers: { opencv: { peer: 'opencv_peer.py', skipped: "OpenCV not available: No module named 'cv2'" } },
    });
    expect(row.peer).toBe("opencv_peer.py: not measured (OpenCV not available: No module named 'cv2')");
    expect(row.ours).toContain('100 ms');
    expect(row.ok).toBeNull();
  });
});
