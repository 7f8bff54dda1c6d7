import type { MockConfig } from '../config.js';
import type { MockClock } from '../domain/clock.js';
import { ImageService } from '../domain/images/image-service.js';
import type { Converter } from '../domain/images/image-conversions.js';
import { JobWorker, type JobWorkerOptions } from '../domain/jobs/job-worker.js';
import { PredictionService, type SegmentationRunner } from '../domain/predictions/prediction-service.js';
import { ExportService } from '../domain/exports/export-service.js';
import { ProgressControls } from '../domain/predictions/progress-controls.js';
import { OrganizationAdmin } from '../domain/organization-admin.js';
import { OrganizationLimits } from '../domain/abuse-limits.js';
import { ShareService } from '../domain/shares/share-service.js';
import type { StateStore } from '../domain/state.js';
import type { ObjectStore } from '../domain/object-store.js';
import { SegmentationReader } from '../domain/segmentations/segmentation-reader.js';
import type { DataLayout } from '../stores/data-layout.js';
import { DerivedImageFileStore } from '../stores/files/derived-image-files.js';
import { KeptExportFileStore } from '../stores/files/kept-export-store.js';
import { SegmentationFileStore } from '../stores/files/segmentation-file-store.js';
import { convertInChild } from '../runtime/decoder-pool/convert-in-child.js';
import { ChildProcessSegmentationRunner } from '../runtime/decoder-pool/segmentation-runner.js';
import type { DecoderPools } from './decoder-pools.js';

/** A segmentation runner the services can recycle (after a reset) and close (at the end). */
export type ClosableRunner = SegmentationRunner & {
  close?: () => Promise<void>;
  recycle?: () => Promise<void>;
};

/** What the domain's use cases are wired to: the state, the files, the clock and the decoder children. */
export interface DomainParts {
  config: MockConfig;
  paths: DataLayout;
  state: StateStore;
  store: ObjectStore;
  clock: MockClock;
  pools: DecoderPools;
  /** How the jobs of predictions and conversions are claimed; the lease and the retry bound are the config's. */
  jobs: Omit<JobWorkerOptions, 'leaseMs' | 'transientRetryMs'>;
  /** Replaces the runner on the segment pool (tests). */
  runner?: ClosableRunner;
  /** Replaces conversion on the convert pool (tests whose subject is not conversion). */
  convert?: Converter;
}

/** The domain's services as wireDomainServices makes them, with what they are wired to. */
export type WiredServices = Omit<DomainParts, 'jobs' | 'runner' | 'convert'> &
  ReturnType<typeof wireDomainServices>;

/** The domain's services, each made once and handed the others it calls. */
export function wireDomainServices({
  config,
  paths,
  state,
  store,
  clock,
  pools,
  jobs,
  runner: given,
  convert,
}: DomainParts) {
  // Every parse of a client's pixels happens in child processes (runtime/decoder-pool).
  const rasterLimits = { maxPixels: config.maxImagePixels, maxDecodedBytes: config.maxDecodedBytes };
  const worker = new JobWorker(state, {
    ...jobs,
    leaseMs: config.jobLeaseMs,
    transientRetryMs: config.jobTransientRetryMs,
  });
  const limits = new OrganizationLimits(state, {
    storedBytes: config.maxStoredBytesPerOrganization,
    openUploads: config.maxOpenUploadsPerOrganization,
    concurrentPredictions: config.maxConcurrentPredictionsPerOrganization,
  });
  const images = new ImageService(state, store, clock, {
    worker,
    limits,
    minPartSize: config.minPartSize,
    presignExpirySeconds: config.presignExpirySeconds,
    convert: convert ?? convertInChild(pools.convert, rasterLimits),
    derivedFiles: new DerivedImageFileStore(paths),
  });
  // No child waits warm from the start: an idle mock holds no process it has not needed yet, and
  // the first prediction pays the child's start (about a second) once.
  const runner: ClosableRunner = given ?? new ChildProcessSegmentationRunner(pools.segment, rasterLimits);
  const progress = new ProgressControls(state, {
    startDelayMs: config.predictionStartDelayMs,
    runDelayMs: config.predictionRunDelayMs,
  });
  const segmentationFiles = new SegmentationFileStore(paths);
  const predictions = new PredictionService(
    state,
    images,
    runner,
    progress,
    clock,
    segmentationFiles,
    worker,
    limits,
  );
  images.onDeleted = (derived) => predictions.forget(derived);
  const segmentations = new SegmentationReader(state, segmentationFiles);
  return {
    worker,
    images,
    runner,
    progress,
    predictions,
    segmentations,
    shares: new ShareService(state, clock, (id) => segmentations.load(id)),
    admin: new OrganizationAdmin(state, images, predictions, clock),
    exports: new ExportService(
      segmentations,
      new KeptExportFileStore(paths, config.exportsKeptPerSegmentation),
    ),
  };
}
