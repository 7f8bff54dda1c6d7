import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What a regression of a set is: a plausible production bug, written from the interface and the
 * OpenAPI document alone, as edits over the traffic between a client and a healthy mock. The
 * forwarding proxy (regression-proxy.ts) hands each hook the request, the answer and a state that
 * lives as long as the proxy, so a bug can remember (a cache that serves a stale value, a size
 * misreported later) as a real backend would.
 */

/** One request as the proxy received it; a `request` hook may edit it before it is forwarded. */
export interface Exchange {
  method: string;
  /** Path and query, e.g. `/api/v1/export/<id>/measurements.csv?columns=area_px`. */
  path: string;
  headers: Headers;
  body: Buffer;
}

/** One answer; a `response` hook may edit it before the client reads it. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** An organization of the seed with its well-known key, or one the client created through the control plane. */
export interface SeedOrganization {
  id: string;
  name: string;
  key: string;
  customModelIds: string[];
}

export interface ProxyState {
  /** The healthy mock's root. */
  target: string;
  /** The proxy's own root (what the client calls). */
  self: string;
  organizations: SeedOrganization[];
  /** Whatever the regression keeps between requests. */
  memo: Map<string, unknown>;
  /** A request straight to the mock, around the regression (a backend's own internal call). */
  upstream(method: string, requestPath: string, init?: { key?: string; body?: unknown }): Promise<Answer>;
  /** The exchange sent to the mock again as it stands (a backend's retry after it changed something). */
  resend(exchange: Exchange): Promise<Answer>;
}

/** Where a clause lives: the interface text, or only the OpenAPI document (an `x-assumed` choice or a detail of it). */
export type StatedIn = 'interface' | 'document';

export type Area =
  'auth' | 'upload' | 'resumable' | 'models' | 'predictions' | 'caps' | 'exports' | 'shares' | 'deletes';

export interface Regression {
  id: string;
  area: Area;
  /** The bug, in one line. */
  description: string;
  /** The sentence of the interface (quoted) or the field of the document it breaks. */
  violates: string;
  statedIn: StatedIn;
  /** Edits the request; an Answer returned is sent as is and the mock is never asked. */
  request?(exchange: Exchange, state: ProxyState): void | Answer | Promise<void | Answer>;
  response?(exchange: Exchange, answer: Answer, state: ProxyState): void | Promise<void>;
}

const SEED_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/seed.json');

interface SeedFile {
  organizations: Array<{
    id: string;
    name: string;
    api_keys: string[];
    custom_models: Array<{ id: string }>;
  }>;
}

export function seedOrganizations(): SeedOrganization[] {
  const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8')) as SeedFile;
  return seed.organizations.map((org) => ({
    id: org.id,
    name: org.name,
    key: org.api_keys[0],
    customModelIds: org.custom_models.map((model) => model.id),
  }));
}
