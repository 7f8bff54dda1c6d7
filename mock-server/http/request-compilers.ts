import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * The Ajv instances request-validator.ts compiles with. A module of its own so that Ajv loads only
 * when this module is imported (dynamically, after the first answer): importing Ajv itself
 * dynamically would not do, since a bundler's dynamic import of a CommonJS package exposes only its
 * default export.
 */
export function createRequestCompilers() {
  // The document's schemas are checked against the meta-schema by `npm run lint:openapi`; checking
  // them again here compiled the 2020-12 meta-schema in every instance, most of a second of start.
  const newAjv = (options: { coerceTypes?: 'array' }) =>
    addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false, ...options }));
  // `params` coerces query and path strings to the schema's types while checking (on copies).
  return { params: newAjv({ coerceTypes: 'array' }), body: newAjv({}) };
}
