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
 * Set J: plausible production bugs written from the interface and the OpenAPI document alone,
 * without reading the contract suite, as an outside measure of it after sets A to I. Most show only
 * in a sequence of requests, under concurrency, on a second key, after a revoke or a delete, or on
 * an input at a boundary.
 */
export const SET_J: Regression[] = [
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
