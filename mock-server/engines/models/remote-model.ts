import type { Plane } from '../raster/plane.js';
import { labelImageToResult } from '../segmentation/label-image-to-result.js';
import type { SegmentationResult } from '../segmentation/types.js';

/**
 * The longest wait a remote model may be given: past it Node's timer refuses the wait, and every
 * prediction on the model failed at once with "The value of "delay" is out of range".
 */
export const MAX_REMOTE_TIMEOUT_MS = 2_147_483_647;

/** What is wrong with a remote model's wait, or undefined: told where a model is made, as the segmenter's parameters are. */
export function remoteTimeoutProblem(timeoutMs: unknown): string | undefined {
  return Number.isSafeInteger(timeoutMs) &&
    (timeoutMs as number) >= 1 &&
    (timeoutMs as number) <= MAX_REMOTE_TIMEOUT_MS
    ? undefined
    : `${String(timeoutMs)} is not a whole number of milliseconds from 1 to ${MAX_REMOTE_TIMEOUT_MS}`;
}

/** Where a remote model's worker listens, how long it may take, and the model's own parameters. */
export interface RemoteWorker {
  readonly url: string;
  readonly timeoutMs: number;
  readonly params?: Record<string, unknown>;
}

/**
 * A model served by an HTTP worker (a Cellpose or StarDist server behind a small adapter): the seam
 * through which a real GPU model replaces the threshold segmenter.
 *
 * Protocol: `POST <url>` with the plane's samples as little-endian bytes
 * (`Content-Type: application/octet-stream`) and headers `X-Width`, `X-Height`,
 * `X-Bits-Per-Sample` (8 or 16) and `X-Model-Params` (JSON). The worker answers 200 with a label
 * image: `width * height` little-endian int32 values, 0 for background, any positive id per object.
 * Anything else is an error whose message the prediction reports.
 */
export async function segmentRemotely(
  plane: Plane,
  { url, timeoutMs, params = {} }: RemoteWorker,
  signal: AbortSignal,
): Promise<SegmentationResult> {
  const body = new Uint8Array(plane.data.buffer, plane.data.byteOffset, plane.data.byteLength);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'Content-Type': 'application/octet-stream',
        'X-Width': String(plane.width),
        'X-Height': String(plane.height),
        'X-Bits-Per-Sample': String(plane.bitsPerSample),
        'X-Model-Params': JSON.stringify(params),
      },
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (err) {
    throw new Error(`model worker at ${url} did not answer: ${(err as Error).message}`);
  }
  if (!response.ok) {
    const text = (await response.text()).slice(0, 200);
    throw new Error(`model worker at ${url} answered ${response.status}: ${text}`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  const expected = plane.width * plane.height * 4;
  if (bytes.byteLength !== expected) {
    throw new Error(
      `model worker at ${url} returned ${bytes.byteLength} bytes; a ${plane.width} x ${plane.height} int32 label image is ${expected}`,
    );
  }
  const labels = new Int32Array(plane.width * plane.height);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let i = 0; i < labels.length; i++) {
    const value = view.getInt32(i * 4, true);
    labels[i] = value > 0 ? value : 0;
    if (value > count) count = value;
  }
  return labelImageToResult({ width: plane.width, height: plane.height, labels, count }).result;
}
