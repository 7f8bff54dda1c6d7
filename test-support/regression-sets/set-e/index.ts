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
 * Set E: regressions written from the interface and the OpenAPI document alone, by someone who has
 * not read the contract suite, after sets A to D were fixed. Each is a bug a backend team could ship:
 * a filter, a cache or a state kept across requests, an encoding, a column type, a fencepost.
 */
export const SET_E: Regression[] = [
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
