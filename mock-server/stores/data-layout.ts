/**
 * The data folder's layout, decided here and nowhere else: every path under `--data-dir` is made
 * by one of these functions, so moving a folder (or putting the files somewhere else entirely)
 * changes this file only.
 *
 *   state.sqlite                            the database (stores/sqlite/database/open-database.ts)
 *   signing-secret                          the embedded store's key for part URLs (persistent mocks)
 *   store/                                  the embedded object store (storeLayout below)
 *   derived/<image id>/                     preview.png, thumbnail.png, plane.bin of a converted image
 *   segmentations/<segmentation id>/        result.json and preview.png of a completed prediction
 *   segmentations/<segmentation id>/exports/ its exports as first rendered (stores/files/kept-export-store.ts)
 *   segmentations/.<segmentation id>.tmp/   the same, while being written
 *   incoming/                               single-request uploads while they stream in
 *   incoming/snapshot-staging/              a snapshot being loaded, checked before it takes its place,
 *                                           and one being taken, written whole before it is sent
 *   cache/                                  local copies of objects kept in a remote store
 */
import path from 'node:path';

export type DataLayout = Readonly<ReturnType<typeof dataLayout>>;

export function dataLayout(root: string) {
  const derived = path.join(root, 'derived');
  const segmentations = path.join(root, 'segmentations');
  const store = path.join(root, 'store');
  const incoming = path.join(root, 'incoming');
  const cache = path.join(root, 'cache');
  const segmentationFiles = (folder: string) => ({
    folder,
    result: path.join(folder, 'result.json'),
    preview: path.join(folder, 'preview.png'),
  });
  return {
    root,
    signingSecret: path.join(root, 'signing-secret'),
    store,
    derived,
    segmentations,
    incoming,
    /** Where a snapshot being loaded or taken is staged (inside incoming/, so a start-up sweep removes a leftover). */
    snapshotStaging: path.join(incoming, 'snapshot-staging'),
    cache,
    /** Folders made at start-up. */
    folders: [root, derived, segmentations, store, incoming, cache] as const,
    /** What a conversion leaves beside the stored original. */
    derivedFilesOf(imageId: string) {
      const folder = path.join(derived, imageId);
      return {
        folder,
        preview: path.join(folder, 'preview.png'),
        thumbnail: path.join(folder, 'thumbnail.png'),
        /** The decoded grey plane the segmenter reads instead of decoding the TIFF again. */
        plane: path.join(folder, 'plane.bin'),
      };
    },
    segmentationOf: (segmentationId: string) => segmentationFiles(path.join(segmentations, segmentationId)),
    /** Where a segmentation's files are written before the rename that publishes them. */
    segmentationStaging: (segmentationId: string) =>
      segmentationFiles(path.join(segmentations, `.${segmentationId}.tmp`)),
    /** The folder of a segmentation's kept exports: inside its own, so they go with it. */
    keptExportsOf: (segmentationId: string) => path.join(segmentations, segmentationId, 'exports'),
  };
}

/**
 * The embedded object store's folder:
 *   objects/<key>                           finished objects (keys are slash-separated paths)
 *   multipart/<upload id>/upload.json       key and plan
 *   multipart/<upload id>/data              the object being assembled
 *   multipart/<upload id>/<part>.json       a part that arrived whole
 *   multipart/<upload id>/<part>.slot       the part's slot in `data`, claimed by its first PUT (O_EXCL)
 *   multipart/<upload id>/<part>.<id>.part  a part sent again, in a file of its own
 *   multipart/<upload id>/lock              held (O_EXCL) while a part is recorded or the upload ends
 *   multipart/<upload id>/lock.takeover     held while a dead holder's lock is removed (folder-lock.ts)
 *   tmp/                                    bytes in flight; on the same file system, so renames are atomic
 */
const PART_RECORD = /^([1-9]\d{0,4})\.json$/;
const SLOT_CLAIM = /^([1-9]\d{0,4})\.slot$/;

/** The part number of a file name `pattern` matches, or undefined for any other name. */
const partNumberIn = (pattern: RegExp) => (fileName: string) => {
  const match = pattern.exec(fileName);
  return match === null ? undefined : Number(match[1]);
};

export type StoreLayout = Readonly<ReturnType<typeof storeLayout>>;

export function storeLayout(root: string) {
  const objects = path.join(root, 'objects');
  const multipart = path.join(root, 'multipart');
  const tmp = path.join(root, 'tmp');
  const uploadFolder = (uploadId: string) => path.join(multipart, uploadId);
  return {
    root,
    objects,
    multipart,
    tmp,
    folders: [objects, multipart, tmp] as const,
    /** The file of an object; `key` must have been checked (no `..`, no empty segment). */
    objectFile: (key: string) => path.join(objects, ...key.split('/')),
    uploadFolder,
    uploadRecord: (uploadId: string) => path.join(uploadFolder(uploadId), 'upload.json'),
    uploadData: (uploadId: string) => path.join(uploadFolder(uploadId), 'data'),
    partRecord: (uploadId: string, partNumber: number) =>
      path.join(uploadFolder(uploadId), `${partNumber}.json`),
    slotClaim: (uploadId: string, partNumber: number) =>
      path.join(uploadFolder(uploadId), `${partNumber}.slot`),
    /** A resent part's own file; `partId` must be a plain token (hex). */
    partFile: (uploadId: string, partNumber: number, partId: string) =>
      path.join(uploadFolder(uploadId), `${partNumber}.${partId}.part`),
    uploadLock: (uploadId: string) => path.join(uploadFolder(uploadId), 'lock'),
    /** The part number of a part record's file name. */
    partNumberOf: partNumberIn(PART_RECORD),
    /** The part number of a slot claim's file name. */
    claimedPartOf: partNumberIn(SLOT_CLAIM),
  };
}
