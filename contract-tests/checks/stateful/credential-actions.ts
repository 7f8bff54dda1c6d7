import type { CallOptions } from '../../harness/api-client.js';
import type { Action } from './image-actions.js';
import { pick, type Handles, type Real } from './world.js';

/**
 * Requests on the sequence's own resources under each class of credential: none, the key with a
 * character appended, one cut, one changed, in upper case, under another scheme (`Basic`, `Token`),
 * with no space after `Bearer`, alone, in the query (`api_key`, `access_token`) or in an
 * `X-API-Key` header with no Authorization (each no valid key: 401, and nothing done); the valid
 * key under `bearer` or `BEARER`, or followed by a space or a newline (which fetch strips as every
 * HTTP client does: a valid key, judged as any other request); and the valid key after two spaces
 * or a tab, which a target that splits the header at its first space refuses (the key's own
 * answer, or a 401 that does nothing: the document says neither). And a
 * read of the organization's usage through the control plane, which the oracle predicts exactly
 * for an organization made here (images stored, analyses this month).
 */
export type CredentialClass =
  | 'none'
  | 'appended'
  | 'cut'
  | 'one changed'
  | 'upper case'
  | 'lower-case scheme'
  | 'upper-case scheme'
  | 'two spaces'
  | 'a tab'
  | 'trailing space'
  | 'trailing newline'
  | 'no space'
  | 'Basic'
  | 'Token'
  | 'the key alone'
  | 'in the query as api_key'
  | 'in the query as access_token'
  | 'X-API-Key alone';

/** The Authorization a class sends (null: none; "!": the raw header), and what else carries the key. */
function credential(kind: CredentialClass, key: string): Pick<CallOptions, 'key' | 'query' | 'headers'> {
  const raw = (header: string) => ({ key: `!${header}` });
  switch (kind) {
    case 'none':
      return { key: null };
    case 'appended':
      return { key: `${key}x` };
    case 'cut':
      return { key: key.slice(0, -1) };
    case 'one changed':
      return { key: `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}` };
    case 'upper case':
      return { key: key.toUpperCase() };
    case 'lower-case scheme':
      return raw(`bearer ${key}`);
    case 'upper-case scheme':
      return raw(`BEARER ${key}`);
    case 'two spaces':
      return raw(`Bearer  ${key}`);
    case 'a tab':
      return raw(`Bearer\t${key}`);
    case 'trailing space':
      return raw(`Bearer ${key} `);
    case 'trailing newline':
      return raw(`Bearer ${key}\n`);
    case 'no space':
      return raw(`Bearer${key}`);
    case 'Basic':
      return raw(`Basic ${Buffer.from(`${key}:`).toString('base64')}`);
    case 'Token':
      return raw(`Token ${key}`);
    case 'the key alone':
      return raw(key);
    case 'in the query as api_key':
      return { key: null, query: { api_key: key } };
    case 'in the query as access_token':
      return { key: null, query: { access_token: key } };
    default:
      return { key: null, headers: { 'x-api-key': key } };
  }
}

/** The request a credential class is tried on: every operation of the document, on the caller's own resources. */
export type Tried =
  | 'uploadImage'
  | 'createImage'
  | 'getUpload'
  | 'getImage'
  | 'completeUpload'
  | 'abortUpload'
  | 'deleteUpload'
  | 'deleteImage'
  | 'listModels'
  | 'getPrediction'
  | 'createPrediction'
  | 'exportOverlayPng'
  | 'exportMeasurementsCsv'
  | 'exportRoisGeojson'
  | 'exportRoisZip'
  | 'createShare'
  | 'getShare'
  | 'revokeShare';

const NOBODY = '00000000-0000-4000-8000-000000000000';

function request(tried: Tried, handles: Readonly<Handles>, real: Real, index: number): CallOptions {
  const image = pick(handles.images, index) ?? NOBODY;
  const segmentation = pick(handles.segmentations, index) ?? image;
  const name = `${real.ctx.target.namePrefix}credential.tif`;
  switch (tried) {
    case 'uploadImage':
      return { body: { name, size: 1000 } };
    case 'createImage':
      return { body: { name, size: 1000, image_type: 'TIFF' } };
    case 'listModels':
      return {};
    case 'getPrediction':
      return { params: { prediction_id: pick(handles.predictions, index) ?? image } };
    case 'createPrediction':
      return {
        body: { image_id: pick(handles.ready, index) ?? image, model_id: pick(real.models, index) ?? image },
      };
    case 'exportOverlayPng':
    case 'exportMeasurementsCsv':
    case 'exportRoisGeojson':
    case 'exportRoisZip':
      return { params: { segmentation_id: segmentation } };
    case 'createShare':
      return { body: { segmentation_id: segmentation } };
    case 'getShare':
    case 'revokeShare':
      return { params: { share_id: pick(handles.shares, index) ?? image } };
    default:
      return { params: { image_id: image } };
  }
}

export function withCredential(tried: Tried, kind: CredentialClass, index: number, key: 0 | 1): Action {
  return {
    label: `${tried} ${index} with the ${key ? 'second ' : ''}key's credential ${kind}`,
    can: () => true,
    send: (real, handles) =>
      real.clients[key].call(tried, {
        ...request(tried, handles, real, index),
        ...credential(kind, real.clients[key].key),
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
