/**
 * The export use case: one segmentation of an organization, as each of the four files the interface
 * names. It finds the segmentation (404 across organizations), and answers the export as first
 * rendered and kept with the segmentation (kept-exports.ts): a segmentation never changes once
 * published, so the bytes of an export depend only on it and on the export's options, and the
 * second ask costs what serving a file costs. The HTTP layer only parses the query and writes the
 * answer (and answers 304 to a client that holds the same ETag).
 */
import { Readable } from 'node:stream';
import type { ExportContext } from '../../engines/exporters/export-context.js';
import {
  CSV_COLUMNS,
  measurementsCsvChunks,
  unknownColumns,
} from '../../engines/exporters/measurements-csv.js';
import { resolveOverlayOptions, type OverlayOptions } from '../../engines/exporters/overlay-options.js';
import type { OverlayBackground } from '../../engines/exporters/overlay-png.js';
import { roisGeoJsonChunks } from '../../engines/exporters/rois-geojson.js';
import { DomainError, notFound } from '../errors.js';
import type { Organization } from '../organization-record.js';
import type { SegmentationRecord, SegmentationRow } from '../predictions/prediction-record.js';
import type { SegmentationReader } from '../segmentations/segmentation-reader.js';
import {
  exportKey,
  heldInMemory,
  isDiskFull,
  type ExportBody,
  type KeptExport,
  type KeptExports,
} from './kept-exports.js';

/** An export as answered: the file it is named after, its validator, its length and its bytes. */
export interface ExportAnswer {
  /** The image's name, from which the attachment's file name is made. */
  readonly imageName: string;
  readonly etag: string;
  readonly size: number;
  /** The bytes, rendered again if the kept file went away since it was found. */
  open(): Promise<NodeJS.ReadableStream>;
}

type Render = (segmentation: SegmentationRecord) => Promise<ExportBody>;

// libvips (sharp) and the zip writer load at the first export that needs them, not at start-up:
// most sessions of the mock never ask for an overlay or a ZIP, and the first answer must not wait.
const overlayModule = () => import('../../engines/exporters/overlay-png.js');
const zipModule = () => import('../../engines/exporters/rois-zip.js');
const previewsModule = () => import('../../engines/raster/previews.js');

export class ExportService {
  /** Renders under way in this instance, so that simultaneous first asks render once. */
  private readonly rendering = new Map<string, Promise<KeptExport>>();

  constructor(
    private readonly segmentations: SegmentationReader,
    private readonly kept: KeptExports,
  ) {}

  /** The measurements table; `columns` empty means every column in the documented order. */
  async measurementsCsv(
    org: Organization,
    segmentationId: string,
    columns: readonly string[],
  ): Promise<ExportAnswer> {
    const row = await this.segmentations.row(org, segmentationId);
    const unknown = unknownColumns([...columns]);
    if (unknown.length) {
      throw new DomainError(
        'invalid_input',
        `Unknown column(s): ${unknown.map((c) => `'${c}'`).join(', ')}. Valid columns: ${CSV_COLUMNS.join(', ')}`,
      );
    }
    const wanted = columns.length ? [...columns] : CSV_COLUMNS;
    return this.answer(row, exportKey('measurements.csv', row, wanted), async (segmentation) =>
      measurementsCsvChunks(contextOf(segmentation), wanted),
    );
  }

  async roisGeojson(org: Organization, segmentationId: string): Promise<ExportAnswer> {
    const row = await this.segmentations.row(org, segmentationId);
    return this.answer(row, exportKey('rois.geojson', row, null), async (segmentation) =>
      roisGeoJsonChunks(contextOf(segmentation)),
    );
  }

  async roisZip(org: Organization, segmentationId: string): Promise<ExportAnswer> {
    const row = await this.segmentations.row(org, segmentationId);
    return this.answer(row, exportKey('rois.zip', row, null), async (segmentation) => {
      const { roisZipStream } = await zipModule();
      // jszip's stream is an older Readable, without async iteration: wrapped into today's.
      return new Readable().wrap(roisZipStream(contextOf(segmentation)));
    });
  }

  /** Throws the exporter's OverlayOptionError for an option out of range, before any pixel is drawn. */
  async overlayPng(
    org: Organization,
    segmentationId: string,
    options: OverlayOptions,
  ): Promise<ExportAnswer> {
    const row = await this.segmentations.row(org, segmentationId);
    const { rgb, fillOpacity, maxSize } = resolveOverlayOptions(options);
    const key = exportKey('overlay.png', row, { rgb, fillOpacity, maxSize: maxSize ?? null });
    return this.answer(row, key, async (segmentation) => {
      const background = await previewPixels(
        segmentation,
        await this.segmentations.previewBytes(segmentation),
      );
      const { overlayPng } = await overlayModule();
      return [await overlayPng(background, segmentation.result, options)];
    });
  }

  private async answer(row: SegmentationRow, key: string, render: Render): Promise<ExportAnswer> {
    const kept = (await this.kept.find(row.id, key)) ?? (await this.render(row, key, render));
    return {
      imageName: row.imageName,
      etag: kept.etag,
      size: kept.size,
      open: async () => {
        const bytes = (await kept.open()) ?? (await (await this.render(row, key, render)).open());
        return bytes ?? (await this.renderedAside(row.id, render));
      },
    };
  }

  /**
   * The render again, held in memory for one answer: its kept file went twice before it was read,
   * as when more variants of a segmentation render at once than are kept. The bytes are the same,
   * so the ETag and length already answered hold; only a deleted segmentation is not found.
   */
  private async renderedAside(segmentationId: string, render: Render): Promise<NodeJS.ReadableStream> {
    const segmentation = await this.segmentations.load(segmentationId);
    if (!segmentation) throw notFound('Segmentation');
    const bytes = await (await heldInMemory(await render(segmentation))).open();
    if (!bytes) throw notFound('Segmentation');
    return bytes;
  }

  private render(row: SegmentationRow, key: string, render: Render): Promise<KeptExport> {
    const id = `${row.id}/${key}`;
    let under = this.rendering.get(id);
    if (!under) {
      under = (async () => {
        const segmentation = await this.segmentations.load(row.id);
        if (!segmentation) throw notFound('Segmentation');
        let kept: KeptExport | undefined;
        try {
          kept = await this.kept.keep(row.id, key, await render(segmentation));
        } catch (error) {
          if (!isDiskFull(error)) throw error;
          return heldInMemory(await render(segmentation));
        }
        if (!kept) throw notFound('Segmentation');
        return kept;
      })().finally(() => this.rendering.delete(id));
      this.rendering.set(id, under);
    }
    return under;
  }
}

function contextOf(segmentation: SegmentationRecord): ExportContext {
  return {
    imageName: segmentation.imageName,
    imageWidth: segmentation.result.width,
    imageHeight: segmentation.result.height,
    segmentationId: segmentation.id,
    segmentationSource: segmentation.source,
    modelName: segmentation.modelName,
    result: segmentation.result,
    roiIds: segmentation.roiIds,
  };
}

/** The grey preview written at conversion; black when the image had none. */
async function previewPixels(
  segmentation: SegmentationRecord,
  png: Buffer | undefined,
): Promise<OverlayBackground> {
  const { width, height } = segmentation.result;
  if (!png) return { width, height, channels: 1, data: new Uint8Array(width * height) };
  const { greyPixelsOfPng } = await previewsModule();
  return greyPixelsOfPng(png);
}
