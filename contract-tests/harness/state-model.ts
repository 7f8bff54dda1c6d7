/**
 * The interface's state tables as plain data, for the stateful exploration: what each operation
 * must answer given what came before. No HTTP here; stateful.check.ts drives a target and compares.
 */
export type UploadState = 'uploading' | 'processing' | 'ready' | 'failed';

export interface ModelImage {
  /** The target's id, learnt from its answer. */
  id: string;
  status: UploadState;
  deleted: boolean;
}

/**
 * Deleting an image deletes what was derived from it ("the image and derived storage"): its
 * segmentations and their shares answer 404 from then on.
 */
export interface ModelSegmentation {
  id: string;
  imageId: string;
  deleted: boolean;
}

export interface ModelShare {
  id: string;
  segmentationId: string;
  revoked: boolean;
  deleted: boolean;
}

export interface InterfaceModel {
  storageCap: number;
  analysisCap: number;
  images: ModelImage[];
  /** Segmentations of completed predictions, oldest first. */
  segmentations: ModelSegmentation[];
  shares: ModelShare[];
  analyses: number;
}

export function newModel(storageCap: number, analysisCap: number): InterfaceModel {
  return { storageCap, analysisCap, images: [], segmentations: [], shares: [], analyses: 0 };
}

/** Images that count against the storage cap: every one not deleted, failed and aborted included. */
export function storedImages(model: InterfaceModel): number {
  return model.images.filter((i) => !i.deleted).length;
}

/** The statuses the interface allows for each operation in a given state (a set: some are open). */
export const expected = {
  createImage: (model: InterfaceModel) => (storedImages(model) < model.storageCap ? [200] : [402]),
  abort: (image: ModelImage) => (image.deleted ? [404] : image.status === 'uploading' ? [200] : [422]),
  delete: (image: ModelImage) => (image.deleted ? [404] : [200]),
  read: (image: ModelImage) => (image.deleted ? [404] : [200]),
  /** Missing: 404. Not ready: 422, as every state conflict (assumed). Cap reached: 402 or 422. */
  predict(model: InterfaceModel, image: ModelImage): number[] {
    if (image.deleted) return [404];
    const capReached = model.analyses >= model.analysisCap;
    if (image.status !== 'ready') return capReached ? [402, 422] : [422];
    return capReached ? [402] : [200];
  },
  share: (segmentation: ModelSegmentation) => (segmentation.deleted ? [404] : [200]),
  /** Revoking a revoked share is not described: any answer but a 5xx, and it stays revoked. */
  revoke: (share: ModelShare) => (share.deleted ? [404] : share.revoked ? [200, 404, 409, 422] : [200]),
  readShare: (share: ModelShare) => (share.deleted ? [404] : [200]),
};

/** An image deleted, and with it its segmentations and their shares. */
export function deleteImage(model: InterfaceModel, image: ModelImage): void {
  image.deleted = true;
  for (const segmentation of model.segmentations.filter((s) => s.imageId === image.id)) {
    segmentation.deleted = true;
    for (const share of model.shares.filter((s) => s.segmentationId === segmentation.id))
      share.deleted = true;
  }
}

/** The live share of a segmentation, if any: POST /shares answers it again. */
export function liveShare(model: InterfaceModel, segmentationId: string): ModelShare | undefined {
  return model.shares.find((s) => s.segmentationId === segmentationId && !s.revoked && !s.deleted);
}
