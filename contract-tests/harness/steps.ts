import { rawAnswerOf, type ApiResponse, type ServerErrorAnswer } from './api-client.js';
import type { OpenApiContract } from './openapi-contract.js';
import type { RecordedExchange } from './transcript.js';

/**
 * One request of a check and the answer it got, named the same way wherever it fails: the report
 * groups what failed and what it blocked by `key`, and shows `text`.
 */
export interface Step {
  /** The operation (or request label) and the status: one root cause however many checks meet it. */
  key: string;
  /** The request and the answer in words: `POST /api/v1/upload (uploadImage) answered 415`. */
  text: string;
  /** What a 5xx answered (its body's start): two server errors of one operation may say apart. */
  said?: string;
}

/**
 * A step the check depends on did not answer what the check needs, so the check cannot go on:
 * its clauses are blocked by that step, not failed by it.
 */
export class BlockedByStep extends Error {
  constructor(
    readonly step: Step,
    why: string,
  ) {
    super(`blocked by step: ${step.text}${why}`);
    this.name = 'BlockedByStep';
  }
}

/** A check's own expectation about a step's answer failed: the step is the failure's root cause. */
export class StepAnsweredOtherwise extends Error {
  constructor(
    readonly step: Step,
    message: string,
  ) {
    super(message);
    this.name = 'StepAnsweredOtherwise';
  }
}

type Answer = ApiResponse | Response;

export function stepOf(answer: Answer | ServerErrorAnswer): Step {
  const known = answer instanceof Response ? rawAnswerOf(answer) : answer;
  if (!known) return { key: `answered ${answer.status}`, text: `a request answered ${answer.status}` };
  const { request, bytes } = known;
  const said = answer.status >= 500 ? bodyStart(bytes) : undefined;
  return {
    key: `${request.label} answered ${answer.status}`,
    text: `${request.method} ${request.path}${request.label === request.path || request.label.startsWith(request.method) ? '' : ` (${request.label})`} answered ${answer.status}`,
    ...(said ? { said } : {}),
  };
}

/**
 * What a step's 5xx said, ids and numbers blanked: one 500 that names each request's own id (or
 * time) says the same every time, and two that say different things differ.
 */
export const saying = (step: Step): string | undefined =>
  step.said
    ?.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '…')
    .replace(/[0-9a-f]*\d[0-9a-f]*/gi, '#');

/**
 * A run of 20 or more letters, digits, `_` or `-` with a digit in it, not a UUID: a key or a token
 * a target's error page may echo (its request's Authorization, a stack's secret), which a report
 * that CI publishes must not carry.
 */
const SECRET_LIKE =
  /(?<![\w-])(?![0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![\w-]))(?=[\w-]*\d)[\w-]{20,}/gi;

/** The start of a body as text, whitespace folded, secret-like runs blanked; undefined when empty or binary. */
function bodyStart(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8', 0, Math.min(bytes.length, 240));
  const binary = [...text].some((c) => c.charCodeAt(0) < 9 || (c.charCodeAt(0) > 13 && c.charCodeAt(0) < 32));
  if (!text || binary) return undefined;
  return `${text.replace(/\s+/g, ' ').replace(SECRET_LIKE, '[redacted]')}${bytes.length > 240 ? '…' : ''}`;
}

/** The start of an answer's body, for a message: what the target said when it said no. */
function excerpt(answer: Answer): string {
  const start = answer instanceof Response ? undefined : bodyStart(answer.bytes);
  return start ? `: ${start}` : '';
}

const expectedText = (expected: number | number[]) =>
  Array.isArray(expected) ? `one of ${expected.join(', ')}` : String(expected);
const matches = (status: number, expected: number | number[]) =>
  Array.isArray(expected) ? expected.includes(status) : status === expected;

/** The value at a dotted path (`upload.urls.0.url`) of a body. */
function at(body: unknown, path: string): unknown {
  let value = body;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * A step the rest of the check depends on: its answer must have the status, each field of
 * `fields` (a dotted path into the body) must be there and not null, and each of `values` must
 * hold the value given. Otherwise the check stops, blocked by this step.
 */
export function need<T extends Answer>(
  answer: T,
  status: number | number[],
  fields: string[] = [],
  values: Record<string, unknown> = {},
): T {
  const step = stepOf(answer);
  if (!matches(answer.status, status))
    throw new BlockedByStep(step, `, expected ${expectedText(status)}${excerpt(answer)}`);
  if (answer instanceof Response) return answer;
  for (const field of fields) {
    const value = at(answer.body, field);
    if (value === undefined || value === null)
      throw new BlockedByStep(
        step,
        ` without ${field} (${value === null ? 'null' : 'absent'})${excerpt(answer)}`,
      );
  }
  for (const [field, expected] of Object.entries(values)) {
    const value = at(answer.body, field);
    if (value !== expected)
      throw new BlockedByStep(
        step,
        ` with ${field} ${JSON.stringify(value)}, expected ${JSON.stringify(expected)}${excerpt(answer)}`,
      );
  }
  return answer;
}

/**
 * The check's own expectation of a status: on a mismatch, a message naming the request, the
 * status it got and the one expected (and `what` the check was doing), with the step for the report.
 */
export function expectStatus(answer: Answer, status: number | number[], what?: string): void {
  if (matches(answer.status, status)) return;
  const step = stepOf(answer);
  throw new StepAnsweredOtherwise(
    step,
    `${what ? `${what}: ` : ''}${step.text}, expected ${expectedText(status)}${excerpt(answer)}`,
  );
}

/**
 * A failure message that does not name the request it judged gets the last answer the check
 * received before it: a bare "expected 3 to be 4" then says where the 3 came from.
 */
export function withLastAnswer(
  message: string,
  transcript: RecordedExchange[],
  contract: OpenApiContract,
): string {
  const last = transcript.at(-1);
  if (!last || / answered |: no answer: /.test(message)) return message;
  const pathname = new URL(last.request.url).pathname;
  const label = contract.labelOf(last.request.method, pathname);
  const operation = contract.operations.get(label);
  const what = operation ? `${operation.path} (${label})` : pathname;
  const answer = last.transportError === undefined ? `answered ${last.status}` : 'got no answer';
  return `${message} [last answer: ${last.request.method} ${what} ${answer}]`;
}
