/**
 * Every testable statement of interface v1.1.0, with the section it comes from. `stated` clauses
 * are the interface's own words; `assumed` ones are this project's choices where it says "not
 * shown" (marked `x-assumed` in the document), reported apart. `advisory` ones are no promise of
 * the interface: whether what a client sends comes back safe to open (OWASP); the report says
 * "safe" or "at risk" for them, and an advisory never fails the run, so they run against staging
 * and production as they are.
 */
export interface Clause {
  id: string;
  area: string;
  kind: 'stated' | 'assumed' | 'advisory';
  summary: string;
  /** How close a measured value must be, where the clause compares numbers. */
  tolerance?: string;
}

const c = (id: string, area: string, kind: Clause['kind'], summary: string, tolerance?: string): Clause => ({
  id,
  area,
  kind,
  summary,
  ...(tolerance ? { tolerance } : {}),
});

/** The CSV writes 4 decimals: a rounded value is within 0.00005 of the exact one. */
const CSV_DECIMALS = '0.001 (the CSV rounds to 4 decimals)';

export const CLAUSES: Clause[] = [
  c('AUTH-01', 'Authentication', 'stated', 'A request without credentials answers 401.'),
  c('AUTH-02', 'Authentication', 'stated', 'An unknown API key answers 401.'),
  c('AUTH-03', 'Authentication', 'stated', 'An Authorization header that is not "Bearer <key>" answers 401.'),
  c(
    'AUTH-04',
    'Authentication',
    'stated',
    'A valid key on an endpoint outside the public surface answers 403.',
  ),
  c('AUTH-05', 'Authentication', 'stated', 'Keys cannot be created through the API.'),
  c('AUTH-06', 'Authentication', 'stated', 'Shared pages opened through a share url need no credential.'),
  c('ERR-01', 'Errors', 'stated', 'Handled errors have body {detail: string} (401, 402, 403, 404).'),
  c('ERR-02', 'Errors', 'assumed', 'An unknown route answers 404 with {detail}.'),
  c(
    'ERR-03',
    'Errors',
    'assumed',
    'A request the resource state refuses answers 422 with a string detail: complete, abort and predict alike.',
  ),
  c(
    'ERR-04',
    'Errors',
    'assumed',
    "Every error status the document lists for an operation and a run cannot cause itself (403, 413, 415, 429, 503, 507) answers the document's media type, body and required headers (429 with Retry-After); injected through the control plane.",
  ),
  c(
    'VAL-01',
    'Errors',
    'stated',
    'A path id that is not a UUID answers 422, on every operation with a path id.',
  ),
  c(
    'VAL-02',
    'Errors',
    'stated',
    '422 on upload, image and export routes carries a FastAPI-style detail array {loc, msg, type, input, ctx}.',
  ),
  c('VAL-03', 'Errors', 'stated', '422 on predict, prediction status and shares carries a string detail.'),
  c('VAL-04', 'Errors', 'stated', 'A body id that is not a UUID answers 422 (predict, shares).'),
  c(
    'VAL-05',
    'Errors',
    'assumed',
    "Malformed JSON, wrong types and missing required fields answer 422 in the operation's style, never 5xx.",
  ),
  c(
    'ISO-01',
    'Organization scoping',
    'stated',
    "Another organization's resource answers 404 on every operation that takes its id.",
  ),
  c(
    'ISO-02',
    'Organization scoping',
    'stated',
    "Another organization's custom models are not listed and answer 404 in predict.",
  ),
  c(
    'UP-01',
    'Uploads',
    'stated',
    'POST /upload multipart answers the image ready, upload null, success true.',
  ),
  c(
    'UP-02',
    'Uploads',
    'stated',
    'POST /upload JSON {name,size} answers the image uploading and a presigned plan.',
  ),
  c(
    'UP-03',
    'Uploads',
    'stated',
    "The plan's parts cover the declared size, numbered 1..n in order; the storage key is never exposed.",
  ),
  c(
    'UP-04',
    'Uploads',
    'stated',
    'Complete answers 202 {status: "processing"}; the image then becomes ready with shape.',
  ),
  c('UP-05', 'Uploads', 'stated', 'Complete with no body discovers the uploaded parts.'),
  c('UP-06', 'Uploads', 'stated', 'Complete with parts assembles exactly that subset.'),
  c('UP-07', 'Uploads', 'stated', 'A file that fails conversion ends failed with upload_error.'),
  c(
    'UP-08',
    'Uploads',
    'stated',
    'Abort discards chunks and marks the image failed; the record stays readable.',
  ),
  c(
    'UP-09',
    'Uploads',
    'stated',
    'DELETE /upload/{id} removes the image (then 404), aborting an in-flight upload first.',
  ),
  c('UP-10', 'Uploads', 'stated', 'DELETE /image/{id} removes the image (then 404).'),
  c('UP-11', 'Uploads', 'stated', 'GET /upload/{id} answers the Image.'),
  c(
    'UP-12',
    'Uploads',
    'assumed',
    'Complete or abort on an image that is not uploading answers 422 with a string detail.',
  ),
  c(
    'UP-13',
    'Uploads',
    'assumed',
    'POST /image with resumable: true answers the record and a plan; GET /image/{id} answers the Image.',
  ),
  c(
    'UP-14',
    'Uploads',
    'stated',
    'Image-record creation refuses server-controlled fields (id, created_by, organization_id, upload_status).',
  ),
  c('UP-15', 'Uploads', 'assumed', 'A presigned part PUT answers 200 with a quoted ETag.'),
  c('UP-16', 'Uploads', 'stated', 'Only a ready image can be passed to POST /predict.'),
  c(
    'UP-17',
    'Uploads',
    'assumed',
    "A part's ETag is the quoted MD5 of the bytes sent for it, as S3 answers.",
    'exact',
  ),
  c('UP-18', 'Uploads', 'assumed', 'A part PUT whose signature was tampered with answers 403.'),
  c(
    'UP-19',
    'Uploads',
    'assumed',
    'A part PUT whose expiry was edited (its signature unchanged) answers 403.',
  ),
  c(
    'UP-20',
    'Uploads',
    'assumed',
    "Image-record creation with a folder id outside the caller's organization answers 404 with a string detail (the interface: the folder must belong to the caller's organization).",
  ),
  c(
    'STB-01',
    'Uploads',
    'assumed',
    'Fields that must not change between reads do not: image id, name, size, type, created_at (shape, processed_at once ready); prediction ids and created_at (result once COMPLETED); share id, url, created_at, access, role.',
    'exact',
  ),
  c('CAP-01', 'Limits', 'stated', 'The storage cap answers 402 with a readable detail on both upload modes.'),
  c('CAP-02', 'Limits', 'stated', 'The storage cap answers 402 on image-record creation, before any bytes.'),
  c(
    'CAP-03',
    'Limits',
    'stated',
    'Failed and aborted images count against the storage cap until deleted; deleting frees the slot.',
  ),
  c('CAP-04', 'Limits', 'stated', 'The monthly analysis cap answers 402 with a readable detail on predict.'),
  c(
    'CAP-05',
    'Limits',
    'stated',
    'A storage cap of N images accepts exactly N (either upload mode) and answers 402 to the next, on all three creations; a delete frees exactly one slot.',
    'exact',
  ),
  c(
    'CAP-06',
    'Limits',
    'stated',
    'A monthly analysis cap of N accepts exactly N predictions and answers 402 to the next.',
    'exact',
  ),
  c(
    'CAP-07',
    'Limits',
    'assumed',
    "The organization's counters (images, analyses this month) move by one with each call that counts and not at all with a refused or failed one.",
    'exact',
  ),
  c('MOD-01', 'Models', 'assumed', 'GET /models lists models with id, name and kind (base or custom).'),
  c(
    'PRED-01',
    'Predictions',
    'stated',
    'POST /predict answers at once with prediction_id and status submitted.',
  ),
  c('PRED-02', 'Predictions', 'stated', 'Polling reaches COMPLETED with segmentation_id and cell_count.'),
  c(
    'PRED-03',
    'Predictions',
    'stated',
    'segmentation_id and cell_count are absent before COMPLETED; status is one of the four states.',
  ),
  c(
    'PRED-04',
    'Predictions',
    'stated',
    'An identical prediction in flight answers skipped with the same prediction_id.',
  ),
  c('PRED-05', 'Predictions', 'stated', 'POST /predict answers 404 for a missing image or model.'),
  c('PRED-06', 'Predictions', 'assumed', 'A FAILED prediction carries an error string.'),
  c(
    'PRED-07',
    'Predictions',
    'assumed',
    'A skipped prediction (identical one in flight) does not count against the monthly analyses.',
    'exact',
  ),
  c(
    'EXP-01',
    'Exports',
    'stated',
    "measurements.csv has the 20 columns in the interface's order and one row per ROI (cell_count rows).",
  ),
  c('EXP-02', 'Exports', 'stated', 'measurements.csv columns, repeated, selects and orders columns.'),
  c(
    'EXP-03',
    'Exports',
    'stated',
    'An unknown CSV column answers an error whose detail names it and lists the valid ones.',
  ),
  c(
    'EXP-04',
    'Exports',
    'stated',
    'rois.geojson is a FeatureCollection with one Polygon per cell in pixel coordinates.',
  ),
  c('EXP-05', 'Exports', 'stated', 'rois.zip is a ZIP of ImageJ .roi files, one per cell.'),
  c('EXP-06', 'Exports', 'stated', 'overlay.png is an RGB PNG.'),
  c('EXP-07', 'Exports', 'stated', 'Exports are file attachments.'),
  c(
    'EXP-08',
    'Exports',
    'assumed',
    'Export media types are text/csv, application/geo+json, application/zip, image/png.',
  ),
  c(
    'EXP-09',
    'Exports',
    'assumed',
    'The four exports agree: ROI ids, areas and bounds match across CSV, GeoJSON and ZIP.',
  ),
  c('EXP-10', 'Exports', 'stated', 'Exports answer 404 for an unknown segmentation.'),
  c(
    'EXP-11',
    'Exports',
    'assumed',
    'An export sent with an ETag answers If-None-Match with it 304, no body and the same ETag; other overlay options, another ETag.',
  ),
  c(
    'SMP-01',
    'Exports',
    'assumed',
    "The model GET /models describes as fitting the sample (bright cells on dark, border cells kept) finds many cells of distinct sizes and positions, some touching the border, none covering the image; checked before any export's meaning.",
  ),
  c(
    'MEAS-01',
    'Exports',
    'assumed',
    'area_px equals the shoelace area of the GeoJSON ring, the area of the decoded ImageJ ROI, and the count of pixels whose centre lies inside.',
    'exact',
  ),
  c(
    'MEAS-02',
    'Exports',
    'assumed',
    'centroid_x/y equal the centroid of the ring: mean pixel index + 0.5, pixel-corner coordinates.',
    CSV_DECIMALS,
  ),
  c(
    'MEAS-03',
    'Exports',
    'assumed',
    "bbox_x, bbox_y, bbox_w, bbox_h are ImageJ's BX, BY, Width, Height of the ring and of the ROI's bounds.",
    'exact',
  ),
  c(
    'MEAS-04',
    'Exports',
    'assumed',
    "perimeter_px is ImageJ's traced perimeter of the ROI: sum|dx| + sum|dy| - corners x (2 - sqrt 2).",
    CSV_DECIMALS,
  ),
  c(
    'MEAS-05',
    'Exports',
    'assumed',
    'confluency is the percent (0-100) of the image covered by the rings, the same on every row.',
    CSV_DECIMALS,
  ),
  c(
    'MEAS-06',
    'Exports',
    'assumed',
    "roi_index is 1-based in row order; the GeoJSON features and the ZIP entries come in the same order, with the same roi_id, and entries are named by ImageJ's RoiManager label of their bounds.",
    'exact',
  ),
  c(
    'MEAS-07',
    'Exports',
    'assumed',
    "image_width and image_height equal the image's shape [height, width] and the size of the file uploaded.",
    'exact',
  ),
  c(
    'MEAS-08',
    'Exports',
    'assumed',
    'overlay.png has the image size and its outline pixels are where the rings are (fill_opacity=0).',
    '99% of drawn pixels within 1 px of an outline pixel; 95% of outline pixels drawn',
  ),
  c(
    'MEAS-09',
    'Exports',
    'assumed',
    'Each decoded ImageJ ROI (type 8, traced) has the corners of its GeoJSON ring and the name of its entry.',
    'exact',
  ),
  c(
    'STATE-01',
    'States',
    'stated',
    "Random sequences of uploads, aborts, deletes, reads, predictions, shares and revokes answer as the interface's state tables say (caps counted, deleted ids 404, one live share per segmentation).",
  ),
  c(
    'SHR-01',
    'Shares',
    'stated',
    'POST /shares answers 200 with a Share: access anyone_with_link, role viewer, view_count 0.',
  ),
  c(
    'SHR-02',
    'Shares',
    'stated',
    'POST /shares again answers the same share (one live link per segmentation).',
  ),
  c('SHR-03', 'Shares', 'stated', 'The share url is {share_base_url}/share/<token>.'),
  c('SHR-04', 'Shares', 'stated', 'GET /shares/{id} answers the share with view_count.'),
  c('SHR-05', 'Shares', 'stated', 'DELETE /shares/{id} revokes: revoked_at set, still readable.'),
  c('SHR-06', 'Shares', 'stated', 'A revoked link no longer opens.'),
  c('SHR-07', 'Shares', 'stated', 'After a revoke, POST /shares creates a new share with a new link.'),
  c('SHR-08', 'Shares', 'stated', 'The public page opens without credentials and shows the cell count.'),
  c('SHR-09', 'Shares', 'stated', 'Each open of the page counts one view.'),
  c(
    'SHR-10',
    'Shares',
    'stated',
    'POST /shares answers 404 for a segmentation outside the organization or unknown.',
  ),
  c(
    'SEC-01',
    'Safe to open',
    'advisory',
    'An image name that starts a spreadsheet formula (=, +, -, @, tab, carriage return) does not come back executable in measurements.csv.',
  ),
  c(
    'SEC-02',
    'Safe to open',
    'advisory',
    'An image name with markup, quotes, line breaks and path characters reaches the share page escaped, Content-Disposition as one well-formed header, and no ROI entry name outside its folder.',
  ),
];

export const ADVISORY_IDS = new Set(CLAUSES.filter((c) => c.kind === 'advisory').map((c) => c.id));

export const CLAUSE_IDS = new Set(CLAUSES.map((x) => x.id));
