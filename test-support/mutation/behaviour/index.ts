import type { Mutant } from '../mutant.js';
import { analysisQuotaMutants } from './analysis-quota.js';
import { authSchemeMutants } from './auth-scheme.js';
import { confinementMutants } from './confinement.js';
import { deleteCascadeMutants } from './delete-cascade.js';
import { idCaseMutants } from './id-case.js';
import { keyScopeMutants } from './key-scope.js';
import { listedPartMutants } from './listed-parts.js';
import { partUrlLifeMutants } from './part-url-life.js';
import { predictionReuseMutants } from './prediction-reuse.js';
import { predictionStatusMutants } from './prediction-status.js';
import { refusalMutants } from './refusals.js';
import { shareChoiceMutants, shareMutants } from './shares.js';
import { storageCapMutants } from './storage-cap.js';
import { uploadPartMutants } from './upload-parts.js';
import { uploadSizeMutants } from './upload-size.js';

/** Every behaviour-level mutant, one module per kind of rule of the interface. */
export const behaviourMutants = (): Mutant[] => [
  ...predictionReuseMutants(),
  ...predictionStatusMutants(),
  ...analysisQuotaMutants(),
  ...storageCapMutants(),
  ...deleteCascadeMutants(),
  ...shareMutants(),
  ...shareChoiceMutants(),
  ...confinementMutants(),
  ...uploadPartMutants(),
  ...refusalMutants(),
  ...listedPartMutants(),
  ...partUrlLifeMutants(),
  ...idCaseMutants(),
  ...authSchemeMutants(),
  ...keyScopeMutants(),
  ...uploadSizeMutants(),
];
