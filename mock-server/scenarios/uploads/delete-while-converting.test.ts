/**
 * An image deleted while its conversion fetches the stored original: on S3 the conversion reads a
 * local copy (`localFileOf`) that the delete's `forgetLocalFile` cannot remove before it exists, so
 * the conversion, finding its row gone, forgets it too. A sandbox on S3 kept one such copy of every
 * image deleted mid-conversion in its shared cache folder, 16 MB each, until a restart's sweep.
 */
import { describe, expect, it } from 'vitest';
import { domainWorld, uploadedParts, type Schedule } from '../../../test-support/domain-world.js';

describe('an image deleted while its conversion fetches the original', () => {
  it('leaves no local copy: the last word on the copy is a forget, after the fetch', async () => {
    const settled: string[] = [];
    let deleteDuringFetch: (() => Promise<void>) | undefined;
    const schedule: Schedule = async (work, label) => {
      if (label === 'store.localFileOf' && deleteDuringFetch) {
        const remove = deleteDuringFetch;
        deleteDuringFetch = undefined;
        await remove();
      }
      const answer = await work;
      settled.push(label);
      return answer;
    };
    const w = await domainWorld(schedule);
    try {
      const id = await uploadedParts(w);
      deleteDuringFetch = () => w.images.delete(w.org, id);
      await w.images.complete(w.org, id);
      await w.images.idle();
      expect(await w.state.images.get(id)).toBeUndefined();
      expect(deleteDuringFetch).toBeUndefined();
      expect(settled.lastIndexOf('store.forgetLocalFile')).toBeGreaterThan(
        settled.lastIndexOf('store.localFileOf'),
      );
    } finally {
      await w.close();
    }
  });
});
