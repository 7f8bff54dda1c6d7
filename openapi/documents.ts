import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseYamlCached } from './yaml-parse-cache.js';

/**
 * The folder holding the documents. Run from the sources it is this module's own; built, this code
 * sits in a bundled chunk under dist/mock-server/ and the documents were copied to dist/openapi/,
 * so the nearest folder up from the module that has an `openapi/openapi.yaml` is the one.
 */
const here = documentsFolder(path.dirname(fileURLToPath(import.meta.url)));

function documentsFolder(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'openapi.yaml'))) return dir;
    if (existsSync(path.join(dir, 'openapi', 'openapi.yaml'))) return path.join(dir, 'openapi');
    if (dir === path.dirname(dir)) throw new Error(`openapi/openapi.yaml not found above ${from}`);
  }
}

/** The folder the mock's run-time files are laid out under: the checkout, or dist/ once built. */
export const INSTALL_ROOT = path.dirname(here);

/** The public interface: what partners generate clients from, and what Prism mocks. */
export const PUBLIC_DOCUMENT = path.join(here, 'openapi.yaml');
/** The mock's control plane and the endpoints outside the public surface. */
export const CONTROL_DOCUMENT = path.join(here, 'mock-control.yaml');

type Json = Record<string, unknown>;
export type OpenApiDocument = Json & { paths: Record<string, Record<string, unknown>> };

/** How the control document refers to what it shares with the public one. */
const PUBLIC_REF_PREFIX = './openapi.yaml#';

/** The document in `file`, a copy of its own for the caller to change. */
export function readDocument(file: string): OpenApiDocument {
  // Built, each document's parse lies beside it (bin/build-dist.js), so the built mock needs no
  // YAML parser, bundled or installed.
  const built = parsedCopy(file);
  if (existsSync(built)) return JSON.parse(readFileSync(built, 'utf8')) as OpenApiDocument;
  return structuredClone(parseYamlCached(readFileSync(file, 'utf8'))) as OpenApiDocument;
}

/** Where the build writes a document's parse: `openapi.yaml` → `openapi.parsed.json`. */
export function parsedCopy(file: string): string {
  return file.replace(/\.yaml$/, '') + '.parsed.json';
}

/**
 * The build (bin/build-dist.js) writes the merged document here as JSON: JSON.parse takes a
 * millisecond where the YAML parser took most of the mock's start-up. Run from the sources there is
 * no such file, and the YAML is read.
 */
export const BUILT_SERVED_DOCUMENT = path.join(here, 'served-document.json');

/**
 * Both documents as one, for code that routes or validates every operation the mock serves: the
 * control document's paths and components join the public ones, and its references into
 * `openapi.yaml` become local. Libraries that dereference (openapi-backend, Ajv) then need no
 * file resolution of their own. A component defined in both must be identical (security schemes
 * are repeated because a security requirement can only name a scheme of its own document).
 */
export function mergeDocuments(publicDoc: OpenApiDocument, controlDoc: OpenApiDocument): OpenApiDocument {
  const merged = structuredClone(publicDoc);
  const control = localizeRefs(structuredClone(controlDoc)) as OpenApiDocument;
  for (const [route, item] of Object.entries(control.paths)) {
    if (route in merged.paths) throw new Error(`${route} is in both OpenAPI documents`);
    merged.paths[route] = item;
  }
  const components = (merged.components ??= {}) as Record<string, Json>;
  for (const [kind, group] of Object.entries((control.components ?? {}) as Record<string, Json>)) {
    const target = (components[kind] ??= {});
    for (const [name, value] of Object.entries(group)) {
      if (name in target && JSON.stringify(target[name]) !== JSON.stringify(value))
        throw new Error(`components/${kind}/${name} differs between the OpenAPI documents`);
      target[name] = value;
    }
  }
  merged.tags = [...((merged.tags as Json[]) ?? []), ...((control.tags as Json[]) ?? [])];
  return merged;
}

function localizeRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(localizeRefs);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith(PUBLIC_REF_PREFIX)
        ? `#${value.slice(PUBLIC_REF_PREFIX.length)}`
        : localizeRefs(value);
  }
  return out;
}

let served: OpenApiDocument | undefined;

/** Every operation the mock serves (both documents merged), read once. */
export function servedDocument(): OpenApiDocument {
  served ??= existsSync(BUILT_SERVED_DOCUMENT)
    ? (JSON.parse(readFileSync(BUILT_SERVED_DOCUMENT, 'utf8')) as OpenApiDocument)
    : mergeDocuments(readDocument(PUBLIC_DOCUMENT), readDocument(CONTROL_DOCUMENT));
  return served;
}

/**
 * Every media type a request body may take: `content`, plus `x-also-accepts`, where an operation
 * lists the media types it accepts beyond the one client generators should see (they support one
 * request media type per operation; POST /upload's JSON mode is the case).
 */
export function requestMediaTypes(requestBody: unknown): Record<string, Json> {
  const body = (requestBody ?? {}) as Json;
  return {
    ...((body.content ?? {}) as Record<string, Json>),
    ...((body['x-also-accepts'] ?? {}) as Record<string, Json>),
  };
}

/**
 * The control document on its own, for serving: what it takes from `openapi.yaml` (the error
 * bodies, `Model`, and what those refer to) is copied into its components, so a reader that
 * fetched it alone resolves every reference.
 */
export function standaloneControlDocument(): OpenApiDocument {
  const publicDoc = readDocument(PUBLIC_DOCUMENT);
  const control = localizeRefs(readDocument(CONTROL_DOCUMENT)) as OpenApiDocument;
  const components = (control.components ??= {}) as Record<string, Json>;
  const pending = [...refsIn(control)];
  const copied = new Set<string>();
  while (pending.length) {
    const ref = pending.pop()!;
    const [kind, name] = ref.slice('#/components/'.length).split('/');
    const group = (components[kind] ??= {});
    if (copied.has(ref) || name in group) continue;
    const shared = ((publicDoc.components as Record<string, Json>)[kind] ?? {})[name];
    if (shared === undefined) throw new Error(`${ref} is in neither OpenAPI document`);
    group[name] = structuredClone(shared);
    copied.add(ref);
    pending.push(...refsIn(shared));
  }
  return control;
}

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => refsIn(item, found));
  else if (node && typeof node === 'object')
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) found.push(value);
      else refsIn(value, found);
    }
  return found;
}
