/**
 * Exports of an unchanged segmentation, rendered once and kept with it (implemented on the data
 * folder by stores/files/kept-export-store.ts). A segmentation never changes once published, so an
 * export is fully named by the segmentation and the options that shape its bytes: the variant key.
 * Keeping is shared through the folder, never decided in one instance's memory.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { SegmentationRow } from '../predictions/prediction-record.js';

/** One kept render: its strong validator and length, and its bytes on demand. */
export interface KeptExport {
  /** A strong ETag (quoted), from the hash of the bytes. */
  readonly etag: string;
  readonly size: number;
  /** The bytes; undefined when the render is no longer there whole (evicted, its segmentation deleted). */
  open(): Promise<NodeJS.ReadableStream | undefined>;
}

export type ExportBody = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

export interface KeptExports {
  find(segmentationId: string, key: string): Promise<KeptExport | undefined>;
  /**
   * Writes the body aside, then puts it in place whole; answers undefined when the segmentation's
   * files are gone (it was deleted meanwhile). Keeps at most a bounded number of variants per
   * segmentation, the oldest rendered going first.
   */
  keep(segmentationId: string, key: string, body: ExportBody): Promise<KeptExport | undefined>;
}

/**
 * Raised when an exporter's bytes change for the same input: renders kept by an older mock in a
 * persistent data folder then stop matching any key.
 */
const RENDER_VERSION = 1;

/** Everything that shapes an export's bytes: the export, the row's fields that appear in it, and the options. */
export function exportKey(kind: string, row: SegmentationRow, options: unknown): string {
  const shape = [
    RENDER_VERSION,
    kind,
    row.id,
    row.predictionId,
    row.createdAt,
    row.imageName,
    row.modelName,
    row.source,
    row.cellCount,
    row.hasPreview,
    options,
  ];
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 32);
}

/**
 * A render that could not be kept (the disk is full): held in memory for this one answer, which
 * still carries the same ETag a kept file of the same bytes would.
 */
export async function heldInMemory(body: ExportBody): Promise<KeptExport> {
  const chunks: Buffer[] = [];
  for await (const chunk of body)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  const bytes = Buffer.concat(chunks);
  return {
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`,
    size: bytes.length,
    open: async () => Readable.from([bytes]),
  };
}

/** A full disk refuses the kept copy, not the export. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
