import type { Regression } from '../regression.js';
import { AUTH } from './auth.js';
import { CAPS } from './caps.js';
import { DELETES } from './deletes.js';
import { EXPORTS } from './exports.js';
import { MODELS } from './models.js';
import { PREDICTIONS } from './predictions.js';
import { RESUMABLE } from './resumable.js';
import { SHARES } from './shares.js';
import { UPLOAD } from './upload.js';

/**
 * Set H: regressions written from the interface and the OpenAPI document by someone who has not read
 * the contract suite, each a bug a backend team could ship, as edits over a healthy mock's traffic.
 */
export const SET_H: Regression[] = [
  ...AUTH,
  ...UPLOAD,
  ...RESUMABLE,
  ...MODELS,
  ...PREDICTIONS,
  ...CAPS,
  ...EXPORTS,
  ...SHARES,
  ...DELETES,
];
