import { sharedContract } from '../../contract-tests/harness/openapi-contract.js';
import { resolve } from '../document-walk/document-operations.js';
import type { Answer, Exchange, SabotageCase } from '../sabotage-catalogue.js';
import { changeAt, dropAt, restoreAt, swapAt, valueChanges, valuesAt } from './json-edits.js';
import type { AnswerEdit, Mutant, MutantLog } from './mutant.js';
import { EACH, fieldName, responseFields, type ResponseField } from './response-fields.js';

type Node = Record<string, unknown>;

/**
 * Mutants generated from openapi/openapi.yaml: per operation, per documented status, per field of
 * its body (nested ones included): dropped, changed within its type, swapped with a sibling of the
 * same type, and (on reads) answered stale; per status, its neighbours. Exports' headers and
 * contents are in export-mutants.ts. Every generated mutant edits every answer of its operation and
 * status, as a regression in the code that writes that answer would.
 */

/** Statuses a client could confuse, each with its neighbours. */
const STATUS_GROUPS = [
  [200, 201, 202, 204],
  [401, 403, 404],
  [402, 429],
  [422, 400],
];

const shorten = (text: string) => (text.length > 400 ? `${text.slice(0, 400)}…` : text);

/** The operation `exchange` reaches, by the document's paths. */
export const operationOf = (exchange: Exchange): string =>
  sharedContract().labelOf(exchange.method, exchange.path.split('?')[0]);

/** A case that applies `edit` to every answer of `operation` with `status`, logging what changed. */
export function answerCase(
  operation: string,
  status: number,
  edit: AnswerEdit,
  log: MutantLog,
): SabotageCase {
  const memory = new Map<string, unknown>();
  return {
    breaks: [],
    files: [],
    response: async (exchange, answer) => {
      if (answer.status !== status || operationOf(exchange) !== operation) return;
      const before = `${answer.status} ${answer.body.toString('utf8', 0, 400)}`;
      if (!(await edit(answer, exchange, memory))) return;
      log.changed++;
      log.example ??= shorten(
        `${exchange.method} ${exchange.path.split('?')[0]}\n  before: ${before}\n  after:  ${answer.status} ${answer.body.toString('utf8', 0, 400)}`,
      );
    },
  };
}

const isJson = (answer: Answer) => /json/.test(answer.headers['content-type'] ?? '');

/** An edit of the parsed JSON body; the body is written back only when `change` changed it. */
export function jsonEdit(
  change: (body: unknown, exchange: Exchange, memory: Map<string, unknown>) => boolean,
): AnswerEdit {
  return (answer, exchange, memory) => {
    if (!isJson(answer)) return false;
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString('utf8'));
    } catch {
      return false;
    }
    if (!change(body, exchange, memory)) return false;
    answer.body = Buffer.from(JSON.stringify(body));
    return true;
  };
}

export interface DocumentedResponse {
  operation: string;
  method: string;
  status: number;
  /** The media types of its content, and the schema of the JSON one. */
  media: string[];
  schema?: unknown;
  headers: string[];
}

/** Every documented response of every operation of the public document, in document order. */
export function documentedResponses(): DocumentedResponse[] {
  const contract = sharedContract();
  const document = contract.doc;
  const found: DocumentedResponse[] = [];
  for (const op of contract.operations.values()) {
    if (op.document !== 'public') continue;
    for (const [status, raw] of Object.entries(op.raw.responses as Node)) {
      if (!/^\d{3}$/.test(status)) continue;
      const response = resolve(document, raw);
      const content = (response.content ?? {}) as Record<string, Node>;
      const media = Object.keys(content);
      const json = media.find((m) => m.includes('json'));
      found.push({
        operation: op.operationId,
        method: op.method,
        status: Number(status),
        media,
        schema: json ? content[json].schema : undefined,
        headers: Object.keys((response.headers ?? {}) as Node),
      });
    }
  }
  return found;
}

function fieldMutants(
  response: DocumentedResponse,
  field: ResponseField,
  siblings: ResponseField[],
): Mutant[] {
  const { operation, status } = response;
  const name = fieldName(field.path);
  const prefix = `${operation}.${status}.body.${name}`;
  const reaches = { operation, status };
  const make = (kind: string, summary: string, change: Parameters<typeof jsonEdit>[0]): Mutant => ({
    id: `${prefix}:${kind}`,
    operation,
    summary,
    reaches,
    build: (log) => answerCase(operation, status, jsonEdit(change), log),
  });
  const mutants: Mutant[] = [];
  if (field.path[field.path.length - 1] !== EACH)
    mutants.push(make('drop', `${name} left out`, (body) => dropAt(body, field.path, field.required)));
  for (const [kind, change] of Object.entries(valueChanges(field)))
    mutants.push(make(kind, `${name} changed (${kind})`, (body) => changeAt(body, field.path, change)));
  for (const other of siblings)
    mutants.push(
      make(
        `swap-${other.path[other.path.length - 1]}`,
        `${name} and ${fieldName(other.path)} swapped`,
        (body) => swapAt(body, field.path, other.path),
      ),
    );
  if (response.method === 'GET')
    mutants.push(
      make(
        'stale',
        `${name} as the first read of the same resource answered it`,
        (body, exchange, memory) => {
          const key = exchange.path.split('?')[0];
          const remembered = memory.get(key) as unknown[] | undefined;
          if (!remembered) {
            memory.set(key, valuesAt(body, field.path));
            return false;
          }
          return restoreAt(body, field.path, remembered);
        },
      ),
    );
  return mutants;
}

/** Fields of one object (same parent path) with the same scalar type and format: candidates for a swap. */
function sameTypeSiblings(field: ResponseField, fields: ResponseField[]): ResponseField[] {
  const parent = fieldName(field.path.slice(0, -1));
  const signature = (f: ResponseField) =>
    `${[...f.types]
      .filter((t) => t !== 'null')
      .sort()
      .join('|')} ${f.format ?? ''} ${f.values ? 'enum' : ''}`;
  return fields.filter(
    (other) =>
      other !== field &&
      fieldName(other.path) > fieldName(field.path) &&
      fieldName(other.path.slice(0, -1)) === parent &&
      other.path[other.path.length - 1] !== EACH &&
      field.path[field.path.length - 1] !== EACH &&
      !field.types.has('object') &&
      !field.types.has('array') &&
      signature(other) === signature(field) &&
      !(field.values && other.values),
  );
}

function statusMutants(response: DocumentedResponse): Mutant[] {
  const { operation, status } = response;
  const group = STATUS_GROUPS.find((g) => g.includes(status)) ?? [];
  return group
    .filter((other) => other !== status)
    .map((other) => ({
      id: `${operation}.${status}.status:${other}`,
      operation,
      summary: `answers ${other} where it answered ${status}`,
      reaches: { operation, status },
      build: (log) =>
        answerCase(
          operation,
          status,
          (answer) => {
            answer.status = other;
            if (other === 204) {
              answer.body = Buffer.alloc(0);
              delete answer.headers['content-type'];
            }
            return true;
          },
          log,
        ),
    }));
}

/** Every mutant of the public document's JSON answers and statuses, in document order. */
export function documentMutants(): Mutant[] {
  const document = sharedContract().doc;
  return documentedResponses().flatMap((response) => {
    const fields = response.schema ? responseFields(document, response.schema) : [];
    return [
      ...statusMutants(response),
      ...fields.flatMap((field) => fieldMutants(response, field, sameTypeSiblings(field, fields))),
    ];
  });
}
