/**
 * A partner's contract as a file: Pact's V4 JSON format (consumer, provider, interactions of type
 * `Synchronous/HTTP`, `metadata.pactSpecification.version` 4.0) where Pact can say it, and under
 * the namespaced key `cellseg-mock` (in each interaction's `comments`, which Pact tools keep, and in
 * `metadata`) what it cannot: the order the interactions chain in, which answer field binds which
 * later id, polls that wait for a state, and the file a multipart upload sends
 * (docs/partner-contracts.md).
 */

export const NAMESPACE = 'cellseg-mock';

/**
 * One matcher list of Pact V4's `matchingRules` (the JSON path is its key): `type` alone, or, for a
 * field the document declares nullable, `type` OR `null` (either the recorded type or null passes).
 */
export interface PactRule {
  combine: 'AND' | 'OR';
  matchers: Array<{ match: 'type'; min?: number } | { match: 'null' }>;
}

export interface PactBody {
  content?: unknown;
  contentType: string;
  encoded: false;
}

/** Pact's ProviderState generator: a value taken from an expression `${name}` at verification. */
export interface PactGenerator {
  type: 'ProviderState';
  expression: string;
}

export interface PactRequest {
  method: string;
  /** The path as recorded; its `generators.path` expression names the bound ids. */
  path: string;
  query?: Record<string, string[]>;
  headers?: Record<string, string[]>;
  body?: PactBody;
  generators?: { path?: PactGenerator; body?: Record<string, PactGenerator> };
}

export interface PactResponse {
  status: number;
  headers?: Record<string, string[]>;
  body?: PactBody;
  /** The answer's fields the partner relies on: JSON paths, each matched by type (or null where nullable). */
  matchingRules?: { body?: Record<string, PactRule> };
}

/** What Pact cannot express, kept in `comments['cellseg-mock']` of each interaction. */
export interface InteractionExtension {
  operationId: string;
  pathTemplate: string;
  /** The request body's shape as the journal recorded it (types, no values). */
  requestShape: unknown;
  /** Ids this answer hands to later interactions: variable name -> JSON path in the answer. */
  binds?: Record<string, string>;
  /**
   * A read the client repeated until a state field reached a value: replayed as a poll that waits
   * for the same value (within the verifier's poll timeout).
   */
  pollUntil?: Record<string, string>;
  /** Requests of the journal this interaction stands for (a poll's repeats). */
  recordedRequests: number;
  /**
   * A request to an address an earlier answer handed out (a share page at the share's `url`,
   * which may live outside the API's base URL): `${variable}`, replayed to that address as it is.
   */
  requestUrl?: string;
  /** A multipart upload: the verifier sends its sample TIFF under this file name. */
  file?: { field: string; name: string };
}

export interface PactInteraction {
  type: 'Synchronous/HTTP';
  key: string;
  description: string;
  providerStates?: Array<{ name: string; params?: Record<string, unknown> }>;
  request: PactRequest;
  response: PactResponse;
  comments: { text?: string[]; [NAMESPACE]: InteractionExtension };
  pending?: boolean;
}

export interface PartnerContract {
  consumer: { name: string };
  provider: { name: string };
  interactions: PactInteraction[];
  metadata: {
    pactSpecification: { version: '4.0' };
    [NAMESPACE]: { recordedFrom: string; recordedAt: string; organizationId: string | null };
  };
}

/** Reads a contract file's JSON, refusing one that is not a V4 contract of this kind. */
export function parseContract(text: string, source: string): PartnerContract {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const contract = value as Partial<PartnerContract>;
  const version = contract.metadata?.pactSpecification?.version;
  if (!Array.isArray(contract.interactions) || !version?.startsWith('4'))
    throw new Error(
      `${source} is not a Pact V4 contract (interactions and metadata.pactSpecification.version 4.x)`,
    );
  contract.interactions.forEach((interaction, i) => {
    if (interaction?.type !== 'Synchronous/HTTP' || !interaction.comments?.[NAMESPACE]?.operationId)
      throw new Error(
        `${source}: interaction ${i + 1} is not a Synchronous/HTTP interaction recorded by cellseg-mock (no comments.${NAMESPACE}.operationId)`,
      );
  });
  return contract as PartnerContract;
}
