import fc from 'fast-check';
import type { CreatedImage } from '../../../openapi/generated/client/types.gen.js';
import { presetTiff } from '../../harness/sample-images.js';
import { idOf } from './arguments.js';
import type { DocumentBounds } from './document-bounds.js';
import { via, type Action } from './image-actions.js';
import type { Handles, Real } from './world.js';

/**
 * The image-record creation with the fields only it has, each class at, under and past what the
 * document allows (CreateImageRequest, x-json-body-limits, read at run time): `metadata` an object,
 * nested to the depth limit and one level past, holding the body's key limit and one key past, the
 * body at its byte limit and one byte past, keys a careless server trips on (`__proto__`,
 * `constructor`, empty, dotted, `$`-led, a NUL), and no object at all; `folder_id` left out, null, a
 * UUID of no folder of the organization (nobody's, or another organization's image), no UUID;
 * `image_type` left out, `TIFF`, in lower case, another format, a number. The record declares the
 * sample TIFF's size, resumable or not, so one created goes on like any other.
 */
export type MetadataClass =
  | 'left out'
  | 'an object'
  | 'at the depth limit'
  | 'past the depth limit'
  | 'at the key limit'
  | 'past the key limit'
  | 'at the byte limit'
  | 'past the byte limit'
  | 'hostile keys'
  | 'a string'
  | 'an array'
  | 'null';
export type FolderClass = 'left out' | 'null' | "nobody's" | "another organization's image" | 'not a UUID';
export type FormatClass = 'left out' | 'TIFF' | 'tiff' | 'PNG' | 'a number';

export const metadataClass = fc.constantFrom<MetadataClass>(
  'left out',
  'an object',
  'an object',
  'at the depth limit',
  'past the depth limit',
  'at the key limit',
  'past the key limit',
  'at the byte limit',
  'past the byte limit',
  'hostile keys',
  'a string',
  'an array',
  'null',
);
export const folderClass = fc.constantFrom<FolderClass>(
  'left out',
  'left out',
  'null',
  'null',
  "nobody's",
  "another organization's image",
  'not a UUID',
);
export const formatClass = fc.constantFrom<FormatClass>(
  'left out',
  'TIFF',
  'TIFF',
  'tiff',
  'PNG',
  'a number',
);

/** An object nested so that the body holding it as a field is `levels` levels deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { well: 'B3' };
  for (let level = 2; level < levels; level++) value = { a: value };
  return value;
}

/** Object keys in a JSON value, nested ones included. */
function keysOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const own = Array.isArray(value) ? 0 : Object.keys(value).length;
  return own + Object.values(value).reduce<number>((n, v) => n + keysOf(v), 0);
}

/** The metadata of a class, given the rest of the body it goes in (the limits are the whole body's). */
function metadataOf(
  kind: MetadataClass,
  rest: Record<string, unknown>,
  body: DocumentBounds['body'],
): unknown {
  switch (kind) {
    case 'an object':
      return { plate: 1, well: 'B3', stain: 'DAPI', notes: 'çélula 細胞', tags: ['a', 'b'] };
    case 'at the depth limit':
    case 'past the depth limit':
      return nested(body.depth + (kind === 'past the depth limit' ? 1 : 0));
    case 'at the key limit':
    case 'past the key limit': {
      // the body's own keys and `metadata` itself count too
      const n = body.keys - keysOf(rest) - 1 + (kind === 'past the key limit' ? 1 : 0);
      return Object.fromEntries(Array.from({ length: Math.max(0, n) }, (_, i) => [`k${i}`, i]));
    }
    case 'at the byte limit':
    case 'past the byte limit': {
      const empty = Buffer.byteLength(JSON.stringify({ ...rest, metadata: { pad: '' } }));
      const pad = body.bytes - empty + (kind === 'past the byte limit' ? 1 : 0);
      return { pad: 'x'.repeat(Math.max(0, pad)) };
    }
    case 'hostile keys':
      // parsed, so they are own keys as a server's JSON parser makes them, not a prototype set
      return JSON.parse(
        '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "": "empty", "a.b": 1, "$where": "1", "k\\u0000": null}',
      );
    case 'a string':
      return 'plate 1, well B3';
    case 'an array':
      return [{ plate: 1 }];
    case 'null':
      return null;
    default:
      return undefined;
  }
}

function folderOf(kind: FolderClass, real: Real, seed: number): unknown {
  if (kind === 'null') return null;
  if (kind === "nobody's") return idOf('nobody', undefined, undefined, seed);
  if (kind === "another organization's image")
    return real.foreign.image ?? idOf('nobody', undefined, undefined, seed);
  if (kind === 'not a UUID') return idOf('not a UUID', undefined, undefined, seed);
  return undefined;
}

const FORMATS: Record<FormatClass, unknown> = {
  'left out': undefined,
  TIFF: 'TIFF',
  tiff: 'tiff',
  PNG: 'PNG',
  'a number': 1,
};

export function createRecord(
  metadata: MetadataClass,
  folder: FolderClass,
  format: FormatClass,
  resumable: boolean,
  seed: number,
  key: 0 | 1,
): Action {
  return {
    label: `create an image record (metadata ${metadata}, folder ${folder}, image_type ${format}${resumable ? ', resumable' : ''})${key ? ' by the second key' : ''}`,
    can: () => true,
    async send(real: Real, handles: Handles) {
      const size = presetTiff().bytes.length;
      const rest: Record<string, unknown> = {
        name: `${real.ctx.target.namePrefix}record.tif`,
        size,
        resumable,
        ...(format === 'left out' ? {} : { image_type: FORMATS[format] }),
        ...(folder === 'left out' ? {} : { folder_id: folderOf(folder, real, seed) }),
      };
      const body =
        metadata === 'left out' ? rest : { ...rest, metadata: metadataOf(metadata, rest, real.bounds.body) };
      const answer = await via(real, key).call<CreatedImage>('createImage', { body });
      if (answer.status !== 200 || typeof answer.body.id !== 'string') return;
      handles.images.push(answer.body.id);
      const plan = answer.body.upload;
      if (!plan || typeof plan.part_size !== 'number') return;
      handles.partSize = plan.part_size;
      const urls = (plan.urls ?? []).map((u) => u.url);
      handles.plans[answer.body.id] = { size, partSize: plan.part_size, urls, tiff: true, etags: {} };
    },
  };
}
