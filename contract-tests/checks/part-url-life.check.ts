import { check } from '../harness/check.js';
import { openResumable } from '../harness/flows.js';
import { expectStatus, need } from '../harness/steps.js';
import { presetTiff } from '../harness/sample-images.js';

/**
 * How long after its plan a part is PUT: what one check can wait, in a file of its own so the
 * other files go on meanwhile, without lengthening a run of a few seconds. A part URL that lives
 * less than this (a life counted in the wrong unit) is refused here, where every other check PUTs
 * its parts at once. The 24 hours themselves are judged where the mock's clock can be moved.
 */
const LATE_PART_MS = 5000;

check(
  "a part URL handed out seconds ago is still taken: its life is the document's 24 hours, by any clock",
  { clauses: ['UP-22'] },
  async (ctx) => {
    const bytes = presetTiff('easy-8bit-256').bytes;
    const opened = need(await openResumable(ctx, bytes.length, 'late-part.tif'), 200, [
      'image.id',
      'upload.urls',
    ]);
    const plan = opened.body.upload!;
    // out of the gate while it waits: a clock a lone check moves is back before the PUT, so the
    // oracle judges it by the time the client saw pass
    await ctx.idle(LATE_PART_MS);
    // judged and gone on from, so the oracle's word on a refusal is said beside the check's
    let taken = true;
    for (const { part_number, url } of plan.urls) {
      const chunk = bytes.subarray((part_number - 1) * plan.part_size, part_number * plan.part_size);
      const late = await ctx.api.raw('PUT', url, { body: chunk, key: null });
      taken &&= late.status === 200;
      await ctx.verify('UP-22', () =>
        expectStatus(late, 200, `PUT of part ${part_number}, ${LATE_PART_MS / 1000} s after its plan`),
      );
    }
    if (!taken) return;
    expectStatus(
      await ctx.api.call('completeUpload', { params: { image_id: opened.body.image.id } }),
      202,
      'complete once every part was PUT late',
    );
  },
);
