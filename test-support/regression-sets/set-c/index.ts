import type { Regression } from '../regression.js';
import { AUTH } from './auth.js';
import { CAPS } from './caps.js';
import { CSV_EXPORT } from './csv.js';
import { DELETES } from './deletes.js';
import { EXPORTS } from './exports.js';
import { MODELS } from './models.js';
import { PREDICTIONS } from './predictions.js';
import { RESUMABLE } from './resumable.js';
import { SHARE_REGRESSIONS } from './shares.js';
import { UPLOAD } from './upload.js';

/**
 * Set C: regressions written from the interface and the OpenAPI document alone, after sets A and B
 * were fixed, by someone who never read the contract suite. None repeats a bug of set A or B.
 */
export const SET_C: Regression[] = [
  ...AUTH,
  ...UPLOAD,
  ...RESUMABLE,
  ...MODELS,
  ...PREDICTIONS,
  ...CAPS,
  ...CSV_EXPORT,
  ...EXPORTS,
  ...SHARE_REGRESSIONS,
  ...DELETES,
];
