import type { Regression } from '../regression.js';
import { AUTH_REGRESSIONS } from './auth.js';
import { CAP_REGRESSIONS } from './caps.js';
import { DELETE_REGRESSIONS } from './deletes.js';
import { EXPORT_REGRESSIONS } from './exports.js';
import { MODEL_REGRESSIONS } from './models.js';
import { PREDICTION_REGRESSIONS } from './predictions.js';
import { RESUMABLE_REGRESSIONS } from './resumable.js';
import { SHARE_REGRESSIONS } from './shares.js';
import { UPLOAD_REGRESSIONS } from './upload.js';

/**
 * Set F: production regressions written from the interface and the OpenAPI document, by an author
 * who did not read the contract suite (`npm run regressions -- --set f`).
 */
export const SET_F: Regression[] = [
  ...AUTH_REGRESSIONS,
  ...UPLOAD_REGRESSIONS,
  ...RESUMABLE_REGRESSIONS,
  ...MODEL_REGRESSIONS,
  ...PREDICTION_REGRESSIONS,
  ...CAP_REGRESSIONS,
  ...EXPORT_REGRESSIONS,
  ...SHARE_REGRESSIONS,
  ...DELETE_REGRESSIONS,
];
