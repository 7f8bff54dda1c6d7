import type { CallOptions } from '../../harness/api-client.js';
import type { Action } from './image-actions.js';
import { pick, type Handles, type Real } from './world.js';

/**
 * Requests on the sequence's own resources under each class of credential: none, the key with a
 * character appended, one cut, one changed, in upper case (each an invalid key: 401, and nothing
 * done), and the valid key under a lower-case scheme (a valid key: judged as any other request).
 * And a read of the organization's usage through the control plane, which the oracle predicts
 * exactly for an organization made here (images stored, analyses this month).
 */
export type CredentialClass =
  'none' | 'appended' | 'cut' | 'one changed' | 'upper case' | 'lower-case scheme';

function credential(kind: CredentialClass, key: string): string | null {
  switch (kind) {
    case 'none':
      return null;
    case 'appended':
      return `${key}x`;
    case 'cut':
      return key.slice(0, -1);
    case 'one changed':
      return `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    case 'upper case':
      return key.toUpperCase();
    default:
      return `!bearer ${key}`;
  }
}

/** The request a credential class is tried on: a read, a delete or a creation of the caller's own. */
export type Tried =
  | 'getUpload'
  | 'deleteImage'
  | 'getPrediction'
  | 'createPrediction'
  | 'exportRoisGeojson'
  | 'revokeShare'
  | 'listModels';

function request(tried: Tried, handles: Readonly<Handles>, real: Real, index: number): CallOptions {
  const image = pick(handles.images, index) ?? '00000000-0000-4000-8000-000000000000';
  switch (tried) {
    case 'getUpload':
    case 'deleteImage':
      return { params: { image_id: image } };
    case 'getPrediction':
      return { params: { prediction_id: pick(handles.predictions, index) ?? image } };
    case 'createPrediction':
      return {
        body: { image_id: pick(handles.ready, index) ?? image, model_id: pick(real.models, index) ?? image },
      };
    case 'exportRoisGeojson':
      return { params: { segmentation_id: pick(handles.segmentations, index) ?? image } };
    case 'revokeShare':
      return { params: { share_id: pick(handles.shares, index) ?? image } };
    default:
      return {};
  }
}

export function withCredential(tried: Tried, kind: CredentialClass, index: number, key: 0 | 1): Action {
  return {
    label: `${tried} ${index} with the ${key ? 'second ' : ''}key's credential ${kind}`,
    can: () => true,
    send: (real, handles) =>
      real.clients[key].call(tried, {
        ...request(tried, handles, real, index),
        key: credential(kind, real.clients[key].key),
      }),
  };
}

export const readUsage: Action = {
  label: "read the organization's usage",
  can: () => true,
  send: (real) =>
    real.ctx.api.call('mockListOrganizations', {
      key: real.ctx.target.adminToken ?? null,
      baseUrl: real.ctx.target.directBaseUrl,
    }),
};
