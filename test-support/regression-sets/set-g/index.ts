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
 * Set G: production bugs written from the interface and the OpenAPI document alone, by someone who
 * has not read the contract suite, as an outside measure of it (see sets.ts).
 */
export const SET_G: Regression[] = [
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
