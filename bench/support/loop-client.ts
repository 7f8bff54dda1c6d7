/**
 * The upload-predict-export loop a client of the API runs (upload a small TIFF, predict, poll until
 * done, read the measurements CSV, delete the image), and how its ids are checked afterwards. The
 * load section and the sandbox section drive the same loop.
 */
import type { HttpApi } from '../../test-support/api-client.js';

export interface Tally {
  images: string[];
  /** Every prediction submitted, with the image it was made on. */
  predictions: Array<{ id: string; imageId: string }>;
  /** Images this client deleted (their predictions went with them). */
  deletedImages: Set<string>;
  skipped: number;
  iterations: number;
  iterationMs: number[];
  failures: string[];
}

export function newTally(): Tally {
  return {
    images: [],
    predictions: [],
    deletedImages: new Set(),
    skipped: 0,
    iterations: 0,
    iterationMs: [],
    failures: [],
  };
}

/** Runs the loop until `deadline` (epoch ms) or `maxIterations`, counting into `t`. */
export async function loopClient(
  api: HttpApi,
  bytes: Buffer,
  deadline: number,
  maxIterations: number,
  t: Tally,
): Promise<void> {
  for (let i = 0; i < maxIterations && Date.now() < deadline; i++) {
    const started = performance.now();
    try {
      const image = await api.uploadBytes(bytes, `load-${i}.tif`);
      t.images.push(image.id);
      if (image.upload_status !== 'ready') throw new Error(`upload ${image.upload_status}`);
      const ack = await api.predict(image.id);
      t.predictions.push({ id: ack.prediction_id, imageId: image.id });
      if (ack.status !== 'submitted') t.skipped++;
      const done = await api.pollPrediction(ack.prediction_id, { intervalMs: 50, timeoutMs: 120_000 });
      if (done.status !== 'COMPLETED') throw new Error(`prediction ${done.status}`);
      const csv = await api.send('GET', `/api/v1/export/${done.segmentation_id}/measurements.csv`);
      await csv.arrayBuffer();
      if (csv.status !== 200) throw new Error(`csv ${csv.status}`);
      await api.json('DELETE', `/api/v1/upload/${image.id}`);
      t.deletedImages.add(image.id);
      t.iterations++;
      t.iterationMs.push(performance.now() - started);
    } catch (err) {
      t.failures.push((err as Error).message.slice(0, 200));
    }
  }
}

/** A GET /predict/{id} after the run, beside whether the loop deleted the prediction's image. */
export interface PredictionLookup {
  imageDeleted: boolean;
  httpStatus: number;
  /** The prediction's status when the GET answered 200. */
  status?: string;
}

export interface PredictionVerdict {
  /** Predictions of images still there that no longer answer. */
  lost: number;
  /** Predictions of images still there that answer but never completed. */
  notCompleted: number;
  /** Predictions that still answer after their image was deleted (the delete should take them along). */
  outlivedImage: number;
}

/**
 * Judges the lookups by what each should answer: a prediction whose image the loop deleted is gone
 * with it (404 is right, and it was polled to COMPLETED before the delete); only a prediction whose
 * image is still there must answer, COMPLETED.
 */
export function judgePredictionLookups(lookups: PredictionLookup[]): PredictionVerdict {
  const verdict: PredictionVerdict = { lost: 0, notCompleted: 0, outlivedImage: 0 };
  for (const l of lookups) {
    if (l.imageDeleted) {
      if (l.httpStatus === 200) verdict.outlivedImage++;
    } else if (l.httpStatus !== 200) verdict.lost++;
    else if (l.status !== 'COMPLETED') verdict.notCompleted++;
  }
  return verdict;
}
