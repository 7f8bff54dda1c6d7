/**
 * The export use case: one segmentation of an organization, as each of the four files the interface
 * names. It finds the segmentation (404 across organizations), builds the exporters' context and
 * hands back bytes or chunks; the HTTP layer only parses the query and writes the answer.
 */
import type { ExportContext } from '../../engines/exporters/export-context.js';
import {
  CSV_COLUMNS,
  measurementsCsvChunks,
  unknownColumns,
} from '../../engines/exporters/measurements-csv.js';
import type { OverlayOptions } from '../../engines/exporters/overlay-png.js';
import { roisGeoJsonChunks } from '../../engines/exporters/rois-geojson.js';
import type { GreyPixels } from '../../engines/raster/previews.js';
import { DomainError } from '../errors.js';
import type { Organization } from '../organization-record.js';
import type { SegmentationRecord } from '../predictions/prediction-record.js';
import type { SegmentationReader } from '../segmentations/segmentation-reader.js';

/** What an export answer needs besides its body: the file it is named after. */
export interface ExportOf<Body> {
  /** The image's name, from which the attachment's file name is made. */
  readonly imageName: string;
  readonly body: Body;
}

// libvips (sharp) and the zip writer load at the first export that needs them, not at start-up:
// most sessions of the mock never ask for an overlay or a ZIP, and the first answer must not wait.
const overlayModule = () => import('../../engines/exporters/overlay-png.js');
const zipModule = () => import('../../engines/exporters/rois-zip.js');
const previewsModule = () => import('../../engines/raster/previews.js');

export class ExportService {
  constructor(private readonly segmentations: SegmentationReader) {}

  /** The measurements table, chunk by chunk; `columns` empty means every column in the documented order. */
  async measurementsCsv(
    org: Organization,
    segmentationId: string,
    columns: readonly string[],
  ): Promise<ExportOf<Iterable<string>>> {
    const segmentation = await this.segmentations.ofOrganization(org, segmentationId);
    const unknown = unknownColumns([...columns]);
    if (unknown.length) {
      throw new DomainError(
        'invalid_input',
        `Unknown column(s): ${unknown.map((c) => `'${c}'`).join(', ')}. Valid columns: ${CSV_COLUMNS.join(', ')}`,
      );
    }
    return exportOf(
      segmentation,
      measurementsCsvChunks(contextOf(segmentation), columns.length ? [...columns] : CSV_COLUMNS),
    );
  }

  async roisGeojson(org: Organization, segmentationId: string): Promise<ExportOf<Iterable<string>>> {
    const segmentation = await this.segmentations.ofOrganization(org, segmentationId);
    return exportOf(segmentation, roisGeoJsonChunks(contextOf(segmentation)));
  }

  async roisZip(org: Organization, segmentationId: string): Promise<ExportOf<NodeJS.ReadableStream>> {
    const segmentation = await this.segmentations.ofOrganization(org, segmentationId);
    const { roisZipStream } = await zipModule();
    return exportOf(segmentation, roisZipStream(contextOf(segmentation)));
  }

  /** Throws the exporter's OverlayOptionError for an option out of range, before any pixel is drawn. */
  async overlayPng(
    org: Organization,
    segmentationId: string,
    options: OverlayOptions,
  ): Promise<ExportOf<Buffer>> {
    const segmentation = await this.segmentations.ofOrganization(org, segmentationId);
    const background = await previewPixels(segmentation, await this.segmentations.previewBytes(segmentation));
    const { overlayPng } = await overlayModule();
    const png = await overlayPng(background, segmentation.result, options);
    return exportOf(segmentation, png);
  }
}

function exportOf<Body>(segmentation: SegmentationRecord, body: Body): ExportOf<Body> {
  return { imageName: segmentation.imageName, body };
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
async function previewPixels(segmentation: SegmentationRecord, png: Buffer | undefined): Promise<GreyPixels> {
  const { width, height } = segmentation.result;
  if (!png) return { width, height, channels: 1, data: new Uint8Array(width * height) };
  const { greyPixelsOfPng } = await previewsModule();
  return greyPixelsOfPng(png);
}
