/**
 * sharp, with libvips' operation cache off. The cache is process-wide and keyed by file path: a
 * deleted and re-uploaded image must never be served from it. sharp switches it on (cache(true))
 * in every thread that loads it, segmentation workers included, so the setting lives here, in the
 * module every user of sharp imports, rather than once at start-up.
 */
import sharp from 'sharp';

sharp.cache(false);

export default sharp;
