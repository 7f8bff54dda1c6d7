/**
 * The four exports of a segmentation: pure functions, no HTTP, no state. Conventions shared by all
 * of them (ROI order, 1-based roi_index, RoiManager names, defaults) are in export-context.ts.
 */
export {
  assertExportable,
  confluencyPercent,
  DEFAULT_CELL_TYPE,
  DEFAULT_ENTITY_TYPE,
  TAG_SEPARATOR,
  type ExportContext,
} from './export-context.js';
export { CSV_COLUMNS, measurementsCsv, unknownColumns, type CsvColumn } from './measurements-csv.js';
export { roisGeoJson, roisGeoJsonText, type RoiFeature, type RoiFeatureCollection } from './rois-geojson.js';
export { encodeTracedRoi } from './imagej-roi.js';
export { roisZip } from './rois-zip.js';
export { roiManagerLabel, uniqueRoiNames } from './roi-names.js';
export {
  DEFAULT_FILL_OPACITY,
  DEFAULT_OUTLINE_COLOR,
  OverlayOptionError,
  overlayPng,
  overlaySize,
  resolveOverlayOptions,
  type OverlayBackground,
  type OverlayOptions,
} from './overlay-png.js';
