import type { OpenApiContract } from '../harness/openapi-contract.js';
import type { components } from '../../openapi/generated/mock-control-types.js';
import { formatPath, type PathStep } from './json-path.js';
import { pathParams } from './path-template.js';
import { NAMESPACE, type PactInteraction, type PartnerContract } from './pact-file.js';
import { pruneToRules, reliedFields } from './relied-fields.js';

export type JournalEntry = components['schemas']['MockJournalEntry'];

/** The states a poll waits for: a read repeated until one of them comes back. */
const SETTLED = new Set(['ready', 'failed', 'COMPLETED', 'FAILED']);
const STATE_FIELDS = ['status', 'upload_status'];
/** Values worth binding: the ids and tokens one answer hands to a later request. */
const ID_LIKE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9_-]{20,})$/;

export interface RecordOptions {
  consumer: string;
  recordedFrom: string;
  recordedAt?: string;
  /** Only the requests answered at or after this ISO date-time (the start of the client's run). */
  since?: string;
  /** Narrowing: per operation id, the only JSON paths of its answers the partner relies on. */
  fields?: Record<string, string[]>;
}

/**
 * Turns an organization's journal (oldest first) into a contract of interactions: each request of
 * the public interface in order, a read repeated back to back kept once (a poll), the ids each
 * answer hands to later requests as bindings, the answer's relied-on fields inferred from the
 * document, and the provider state the answer shows the organization was in.
 */
export function recordContract(
  contract: OpenApiContract,
  journal: JournalEntry[],
  options: RecordOptions,
): PartnerContract {
  const entries = journal.filter(
    (e) =>
      e.status > 0 &&
      e.operation_id &&
      contract.operations.get(e.operation_id)?.document === 'public' &&
      (options.since === undefined || Date.parse(e.at) >= Date.parse(options.since)),
  );
  const groups: JournalEntry[][] = [];
  for (const entry of entries) {
    const last = groups.at(-1)?.at(-1);
    const repeated = last?.method === 'GET' && entry.method === 'GET' && last.path === entry.path;
    if (repeated && last.status === entry.status && !last.fault && !entry.fault) groups.at(-1)!.push(entry);
    else groups.push([entry]);
  }
  // Each id an answer hands out, by value; named after the first request that sends it back.
  const bound = new Map<string, { interaction: PactInteraction; path: string; variable?: string }>();
  const taken = new Set<string>();
  const use = (value: string, usedAs: string): string | undefined => {
    const binding = bound.get(value);
    if (!binding) return undefined;
    if (!binding.variable) {
      let name = usedAs;
      for (let i = 2; taken.has(name); i++) name = `${usedAs}_${i}`;
      taken.add(name);
      binding.variable = name;
    }
    return binding.variable;
  };
  /** The addresses answers hand out (a share's `url`), by their path. */
  const addresses = new Map<string, string>();
  const interactions = groups.map((group, index) => {
    const interaction = toInteraction(contract, group, index, options);
    const ext = interaction.comments[NAMESPACE];
    // A request to an address an earlier answer handed out (a share page) goes to that address.
    const address = [...addresses].find(([at]) => at.endsWith(interaction.request.path))?.[1];
    const addressVariable = address === undefined ? undefined : use(address, 'url');
    if (addressVariable) ext.requestUrl = `\${${addressVariable}}`;
    // The ids this request reuses from earlier answers become expressions.
    const params = addressVariable ? {} : pathParams(ext.pathTemplate, interaction.request.path);
    let expression = ext.pathTemplate;
    let generated = false;
    for (const [name, value] of Object.entries(params)) {
      const variable = use(value, name);
      expression = expression.replace(`{${name}}`, variable ? `\${${variable}}` : encodeURIComponent(value));
      generated ||= variable !== undefined;
    }
    if (generated) interaction.request.generators = { path: { type: 'ProviderState', expression } };
    for (const [value, at] of stringLeaves(interaction.request.body?.content)) {
      const variable = use(value, String(at.filter((s) => typeof s === 'string').at(-1) ?? 'value'));
      if (!variable) continue;
      interaction.request.generators ??= {};
      (interaction.request.generators.body ??= {})[formatPath(at)] = {
        type: 'ProviderState',
        expression: `\${${variable}}`,
      };
    }
    // The ids this answer hands out, for the requests after it.
    for (const [value, at] of stringLeaves(group.at(-1)!.response_body)) {
      const url = ID_LIKE.test(value) ? undefined : URL.parse(value);
      if ((ID_LIKE.test(value) || url?.protocol.startsWith('http')) && !bound.has(value))
        bound.set(value, { interaction, path: formatPath(at) });
      if (url?.protocol.startsWith('http')) addresses.set(url.pathname, value);
    }
    return interaction;
  });
  for (const { variable, interaction, path } of bound.values())
    if (variable) (interaction.comments[NAMESPACE].binds ??= {})[variable] = path;
  return {
    consumer: { name: options.consumer },
    provider: { name: 'cellseg' },
    interactions,
    metadata: {
      pactSpecification: { version: '4.0' },
      [NAMESPACE]: {
        recordedFrom: options.recordedFrom,
        recordedAt: options.recordedAt ?? new Date().toISOString(),
        organizationId: entries[0]?.organization_id ?? null,
      },
    },
  };
}

function toInteraction(
  contract: OpenApiContract,
  group: JournalEntry[],
  index: number,
  options: RecordOptions,
): PactInteraction {
  const first = group[0];
  const last = group.at(-1)!;
  const operationId = first.operation_id!;
  const template = first.path_template ?? contract.operation(operationId).path;
  const answer = typeof last.response_body === 'string' ? undefined : last.response_body;
  let rules = answer === undefined ? {} : reliedFields(contract, operationId, last.status, answer);
  const narrowed = options.fields?.[operationId];
  if (narrowed) rules = Object.fromEntries(Object.entries(rules).filter(([path]) => narrowed.includes(path)));
  const pollUntil = Object.fromEntries(
    STATE_FIELDS.flatMap((field) => {
      const value = (answer as Record<string, unknown> | undefined)?.[field];
      return first.method === 'GET' && typeof value === 'string' && SETTLED.has(value)
        ? [[`$.${field}`, value]]
        : [];
    }),
  );
  const media = first.request_media_type ?? null;
  const multipart = media === 'multipart/form-data';
  const uploadedName = (answer as { image?: { name?: string } } | undefined)?.image?.name;
  const states = providerStates(operationId, last);
  const n = index + 1;
  return {
    type: 'Synchronous/HTTP',
    key: `${String(n).padStart(3, '0')}-${operationId}`,
    description: `${n}. ${first.method} ${template} (${operationId}) answers ${last.status}`,
    ...(states.length ? { providerStates: states } : {}),
    request: {
      method: first.method,
      path: first.path,
      ...(media ? { headers: { 'Content-Type': [media] } } : {}),
      ...(media && !multipart && first.request_body !== undefined
        ? { body: { content: first.request_body, contentType: media, encoded: false as const } }
        : {}),
    },
    response: {
      status: last.status,
      ...(answer !== undefined
        ? {
            headers: { 'Content-Type': ['application/json'] },
            body: {
              content: pruneToRules(answer, rules),
              contentType: 'application/json',
              encoded: false as const,
            },
          }
        : {}),
      ...(Object.keys(rules).length ? { matchingRules: { body: rules } } : {}),
    },
    comments: {
      text: [`Recorded from ${group.length} request(s) of the journal, the last at ${last.at}.`],
      [NAMESPACE]: {
        operationId,
        pathTemplate: template,
        requestShape: first.request_shape ?? null,
        ...(Object.keys(pollUntil).length ? { pollUntil } : {}),
        recordedRequests: group.length,
        ...(multipart ? { file: { field: 'file', name: uploadedName ?? 'upload.tif' } } : {}),
      },
    },
  };
}

/**
 * The control-plane setups an answer shows the organization was driven into: named as the
 * verifier sets them up (provider-states.ts).
 */
function providerStates(
  operationId: string,
  entry: JournalEntry,
): NonNullable<PactInteraction['providerStates']> {
  if (entry.fault && entry.status >= 400)
    return [
      {
        name: `${operationId} answers ${entry.status} once (an injected fault)`,
        params: { operation_id: operationId, status: entry.status },
      },
    ];
  if (entry.status === 402 && ['uploadImage', 'createImage'].includes(operationId))
    return [{ name: 'organization at its storage cap' }];
  if (entry.status === 402 && operationId === 'createPrediction')
    return [{ name: 'organization at its monthly analysis cap' }];
  return [];
}

function stringLeaves(value: unknown, at: PathStep[] = [], out: Array<[string, PathStep[]]> = []) {
  if (typeof value === 'string') out.push([value, at]);
  else if (Array.isArray(value)) value.forEach((v, i) => stringLeaves(v, [...at, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) stringLeaves(v, [...at, k], out);
  return out;
}
