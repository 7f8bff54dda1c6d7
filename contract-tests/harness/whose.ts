/**
 * Whether what a cleanup is about to delete is the run's own, judged from a read of it. Its id came
 * from the target's answer, which may name someone else's image or share (on production), so a
 * check's cleanup and --cleanup-only both read it first and follow this one rule.
 */
export type Whose = 'gone' | 'ours' | 'not now' | { notOurs: string };

/** An image read by its id: the run's when its name holds the run's prefix. */
export function whoseImage(status: number, name: unknown, prefix: string): Whose {
  if (status === 404) return 'gone';
  if (status !== 200) return 'not now';
  if (typeof name === 'string' && name.includes(prefix)) return 'ours';
  return { notOurs: typeof name === 'string' ? `is named '${name}'` : 'read 200 with no name' };
}

/** A share read by its id: the run's when it is of the segmentation the run asked it for. */
export function whoseShare(status: number, segmentationId: unknown, asked: string): Whose {
  if (status === 404) return 'gone';
  if (status !== 200) return 'not now';
  if (typeof segmentationId === 'string' && segmentationId.toLowerCase() === asked.toLowerCase())
    return 'ours';
  return { notOurs: `reads as of ${JSON.stringify(segmentationId)}` };
}
