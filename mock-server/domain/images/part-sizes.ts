import type { KnownUpload, ObjectStore, PartSelection } from '../object-store.js';
import { DomainError } from '../errors.js';

/**
 * Before a complete assembles anything: parts were uploaded, the listed ones among them, and the
 * chosen ones add up to the size the image was declared with. The store answers the parts from
 * what it holds durably (the embedded store's records; S3 sizes a listed selection by the plan).
 */
export async function assertPartsAddUp(
  store: ObjectStore,
  uploadId: string,
  declaredSize: number,
  selection: PartSelection[] | undefined,
  known: KnownUpload,
): Promise<void> {
  const arrived = await store.listParts(uploadId, { known, selection });
  if (arrived.length === 0) {
    throw new DomainError(
      'invalid_input',
      'No parts were uploaded: PUT each chunk to its presigned url before completing.',
    );
  }
  const chosen = selection ? new Set(selection.map((p) => p.partNumber)) : null;
  const missing = selection?.filter((p) => !arrived.some((a) => a.partNumber === p.partNumber)) ?? [];
  if (missing.length) {
    throw new DomainError('invalid_input', `Part ${missing[0].partNumber} was not uploaded.`);
  }
  const total = arrived
    .filter((p) => !chosen || chosen.has(p.partNumber))
    .reduce((sum, p) => sum + p.size, 0);
  if (total !== declaredSize) {
    throw new DomainError(
      'invalid_input',
      `Size mismatch: the image was declared as ${declaredSize} bytes but the parts add up to ${total} bytes.`,
    );
  }
}
