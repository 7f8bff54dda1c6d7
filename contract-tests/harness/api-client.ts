import { ConsistencyLedger } from './consistency.js';
import { describeFinding, type Exchange } from '../model/exchange.js';
import { Oracle } from '../model/oracle.js';
import { tiffLayout } from '../model/tiff-layout.js';
import type { OpenApiContract, OperationSpec } from './openapi-contract.js';
import type { Target } from './target.js';
import {
  recordAnswer,
  recordBody,
  recordNoAnswer,
  type RecordedExchange,
  type RecordedRequest,
} from './transcript.js';
import { describeTransportError } from './transport-errors.js';
import { undoing } from './cleanup.js';
import { boundedFetch } from './bounded-fetch.js';
import { multipartFileOf } from './multipart-body.js';

export interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string | number | string[] | undefined>;
  /** JSON body (serialised) unless `rawBody` is given. */
  body?: unknown;
  rawBody?: RequestInit['body'];
  headers?: Record<string, string>;
  /** The key to send; `null` sends no Authorization header; a string starting with "!" is sent as the raw header. */
  key?: string | null;
  /** Skip response validation: for checks that send requests the document cannot describe. */
  unvalidated?: boolean;
  /** Send to this root instead of the target's (around Prism's proxy, which corrupts binary multipart bodies). */
  baseUrl?: string;
  /**
   * Throw at once when the response breaks the document, instead of failing the check at its end:
   * for loops (polls) that would otherwise wait for a value the document does not allow.
   */
  failFast?: boolean;
  /**
   * The check injected this status through the control plane: a 5xx of exactly that status is the
   * answer asked for, not a server error (any other 5xx still fails the run).
   */
  injectedStatus?: number;
  /**
   * Statuses that, with Retry-After, are the target saying "not now" (a cleanup request's 429 or
   * 503): neither a server error nor held against the model, and not marked injected either.
   */
  tolerated?: readonly number[];
  /** A longer wait than --request-timeout-ms for this one answer (a request bound by its size), and why. */
  timeout?: { ms: number; source: string };
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  contentType: string | null;
  body: T;
  bytes: Buffer;
  operationId: string;
  /** The request as sent (method, the operation's path template, the URL), for messages that name it. */
  request: { method: string; path: string; url: string; label: string };
  /** How this answer broke the document (status, media type or schema); empty when it did not. */
  violations: string[];
}

export interface SeenCall {
  operationId: string;
  status: number;
}

/** What all the clients of one check saw, together and in order. */
export interface CheckRecord {
  seen: SeenCall[];
  violations: string[];
  transcript: RecordedExchange[];
  /** The resources the check's answers described, each answer held against the earlier ones. */
  ledger: ConsistencyLedger;
  /**
   * The interface's model, fed every answer of the check: its findings fail the check. Absent
   * where a run judges only what someone relies on (a partner contract's replay).
   */
  oracle?: Oracle;
  /** Aborted when the check's body is cut at its deadline: its later requests are not sent, the cleanup's are. */
  cut?: AbortSignal;
  /** The clauses the check names: a finding or violation filed under another clause is not its to report. */
  clauses?: readonly string[];
  /** What was filed under one of those clauses: it fails that clause alone (check.ts). */
  filed: Array<{ clause: string; message: string }>;
  /**
   * The 5xx answer each violation came from, for the violations 5xx answers brought (one entry per
   * violation): a check whose every violation is here, all of one step, failed at that step (check.ts).
   */
  fromServerErrors: ServerErrorAnswer[];
}

/** A 5xx answer, as steps.ts names it. */
export type ServerErrorAnswer = Pick<ApiResponse, 'request' | 'status' | 'bytes'>;

export const newCheckRecord = (): CheckRecord => ({
  seen: [],
  violations: [],
  filed: [],
  fromServerErrors: [],
  transcript: [],
  ledger: new ConsistencyLedger(),
  oracle: new Oracle(),
});

/**
 * HTTP client of one check: builds requests from the document's operations, validates every
 * response against the document (status, media type, body schema) and keeps what it saw for the
 * report. Violations are collected and fail the check at its end.
 */
export class ApiClient {
  readonly seen: SeenCall[];
  readonly violations: string[];
  readonly transcript: RecordedExchange[];
  private readonly ledger: ConsistencyLedger;
  readonly oracle?: Oracle;
  private readonly cut?: AbortSignal;
  private readonly clauses: readonly string[];
  private readonly filed: CheckRecord['filed'];
  private readonly fromServerErrors: ServerErrorAnswer[];
  private lastRequestAt = 0;

  constructor(
    readonly contract: OpenApiContract,
    readonly target: Target,
    readonly key: string,
    record: CheckRecord = newCheckRecord(),
  ) {
    this.seen = record.seen;
    this.violations = record.violations;
    this.transcript = record.transcript;
    this.ledger = record.ledger;
    this.oracle = record.oracle;
    this.cut = record.cut;
    this.clauses = record.clauses ?? [];
    this.filed = record.filed;
    this.fromServerErrors = record.fromServerErrors;
    this.oracle?.knowBase(target.baseUrl);
    this.oracle?.knowKeys({ main: target.keys.main, other: target.keys.other, tiny: target.keys.tiny });
    // a second key of the main organization is that organization's, not an organization of its own
    this.oracle?.knowKeys({ main: target.keys.second });
  }

  /** Hands one exchange to the oracle; its findings fail the check like a broken answer. */
  private judge(exchange: Omit<Exchange, 'headers'> & { headers: Headers }): void {
    const findings = this.oracle?.observe({ ...exchange, headers: Object.fromEntries(exchange.headers) });
    for (const f of findings ?? []) this.report(`oracle: ${describeFinding(f)}`, f.clause);
  }

  /**
   * Sends `requests` at once (a `Promise.all` of them): the oracle judges their answers together,
   * as requests the target may have taken in any order (model/overlap.ts).
   */
  async together<T>(requests: () => Promise<T>): Promise<T> {
    if (!this.oracle) return requests();
    this.oracle.hold();
    try {
      return await requests();
    } finally {
      for (const f of this.oracle.release()) this.report(`oracle: ${describeFinding(f)}`, f.clause);
    }
  }

  /**
   * A violation or finding fails the check; one filed under a clause fails that clause alone, and
   * only where the check names it (a rule of the document's that other checks meet by the way).
   */
  private report(message: string, clause: string | undefined): void {
    if (clause === undefined) this.violations.push(message);
    else if (this.clauses.includes(clause)) this.filed.push({ clause, message });
  }

  /**
   * How a reproducer names the key sent: the environment variable that holds it, never the key.
   * A key of none of them (a made-up one, or a throw-away organization's, which the reproducer
   * reads back from the answer that created it) is kept as a raw header.
   */
  private describeKey(header: string | undefined): Pick<RecordedRequest, 'keyVariable' | 'rawAuthorization'> {
    if (header === undefined) return { keyVariable: null };
    // the header a reproducer sends is the one that went: fetch strips its trailing whitespace
    header = onTheWire(header);
    const variables: Array<[string | undefined, string]> = [
      [this.target.keys.main, 'CONTRACT_API_KEY'],
      [this.target.keys.other, 'CONTRACT_OTHER_ORG_API_KEY'],
      [this.target.keys.tiny, 'CONTRACT_TINY_API_KEY'],
      [this.target.keys.second, 'CONTRACT_SECOND_API_KEY'],
      [this.target.adminToken, 'CONTRACT_ADMIN_TOKEN'],
    ];
    const sent = bearerKey(header);
    for (const [key, variable] of variables)
      if (key && sent?.key === key)
        return { keyVariable: variable, ...(sent.scheme === 'Bearer ' ? {} : { scheme: sent.scheme }) };
    return { keyVariable: null, rawAuthorization: header };
  }

  async call<T = unknown>(operationId: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const op = this.contract.operation(operationId);
    const url = this.urlOf(op, options);
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const key = options.key === undefined ? this.key : options.key;
    if (key !== null) headers.authorization = key.startsWith('!') ? key.slice(1) : `Bearer ${key}`;
    let body: RequestInit['body'] | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const recorded: RecordedRequest = {
      method: op.method,
      url: url.toString(),
      ...this.describeKey(headers.authorization),
      contentType: headers['content-type'],
      body: await recordBody(body),
    };
    await this.pace();
    const sentAt = Date.now();
    const answered = this.oracle?.sending(sentKey(key)) ?? (() => {});
    let response: Response;
    let bytes: Buffer;
    try {
      ({ response, bytes } = await this.send(
        url,
        { method: op.method, headers, body, redirect: 'manual' },
        recorded,
        options.timeout,
      ));
    } finally {
      answered();
    }
    const receivedAt = Date.now();
    const violationsBefore = this.violations.length;
    const contentType = response.headers.get('content-type');
    this.transcript.push(recordAnswer(recorded, response.status, contentType, bytes));
    const parsed = contentType?.includes('json') && bytes.length ? safeJson(bytes) : bytes;
    this.seen.push({ operationId, status: response.status });
    const own: string[] = [];
    if (!options.unvalidated) {
      const all = this.contract.validateResponse(
        operationId,
        response.status,
        contentType,
        parsed,
        response.headers,
      );
      for (const v of all) this.report(v.message, v.clause);
      // one filed under a clause is that clause's; the answer is otherwise as the document says
      const violations = all.filter((v) => v.clause === undefined);
      own.push(...violations.map((v) => v.message));
      if (!violations.length && response.status < 300 && contentType?.includes('json'))
        this.violations.push(
          ...this.ledger.observe(operationId, options.body, parsed, sentAt, receivedAt, options.params),
        );
      if (options.failFast && violations.length)
        throw new Error(`${op.method} ${url.pathname} answered outside the document:\n- ${own.join('\n- ')}`);
    }
    const tolerated = !!options.tolerated?.includes(response.status) && response.headers.has('retry-after');
    if (response.status >= 500 && response.status !== options.injectedStatus && !tolerated)
      this.violations.push(
        `${operationId}: server error ${response.status}: ${bytes.toString('utf8').slice(0, 300)}`,
      );
    if (!tolerated)
      this.judge({
        operationId,
        method: op.method,
        url: url.toString(),
        params: options.params ?? {},
        ...sentCredential(key),
        sent: sentForOracle(options.body, recorded),
        sentHeaders: withoutCredential(new Headers(headers)),
        sentAt,
        receivedAt,
        status: response.status,
        headers: response.headers,
        body: parsed,
        bytes,
        injected: options.injectedStatus !== undefined,
      });
    const request = { method: op.method, path: op.path, url: url.toString(), label: operationId };
    this.noteServerError(violationsBefore, { request, status: response.status, bytes });
    return {
      status: response.status,
      headers: response.headers,
      contentType,
      body: parsed as T,
      bytes,
      operationId,
      request,
      violations: own,
    };
  }

  /** The operation's URL on the target, with the call's path parameters and query. */
  private urlOf(op: OperationSpec, options: CallOptions): URL {
    // Prism's proxy knows the public document only: the control plane and the internal endpoints
    // (mock-control.yaml) go to the target itself.
    const root =
      options.baseUrl ?? (op.document === 'control' ? this.target.directBaseUrl : this.target.baseUrl);
    const url = new URL(root + fillPath(op.path, options.params ?? {}));
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
    }
    return url;
  }

  /** The violations since `before` came from this answer: a 5xx's are noted as its own. */
  private noteServerError(before: number, answer: ServerErrorAnswer): void {
    if (answer.status < 500) return;
    for (let i = before; i < this.violations.length; i++) this.fromServerErrors.push(answer);
  }

  /**
   * A request outside the document's operations (unknown route, presigned part URL, share page),
   * or one the document cannot describe: not schema-checked, but counted in the report under the
   * operation it reaches, or under a label of its own.
   */
  async raw(
    method: string,
    pathOrUrl: string,
    init: RequestInit & { key?: string | null } = {},
  ): Promise<Response> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : this.target.baseUrl + pathOrUrl;
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? this.key : init.key;
    if (key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
    const recorded: RecordedRequest = {
      method,
      url,
      ...this.describeKey(headers.get('authorization') ?? undefined),
      contentType: headers.get('content-type') ?? undefined,
      body: await recordBody(init.body ?? undefined),
    };
    await this.pace();
    const authorization = headers.get('authorization');
    const rawKey = authorization === null ? null : bearerKey(authorization)?.key;
    // an Authorization header of another scheme (or none the oracle can read as Bearer)
    const otherScheme = authorization !== null && rawKey === undefined;
    const sentAt = Date.now();
    const answered = this.oracle?.sending(rawKey) ?? (() => {});
    let response: Response;
    let copy: Buffer;
    try {
      let sent: Response;
      ({ response: sent, bytes: copy } = await this.send(
        url,
        { ...init, method, headers, redirect: 'manual' },
        recorded,
      ));
      // The body was read (within the limits): the caller gets an answer that reads it again.
      response = readAgain(sent, copy);
    } finally {
      answered();
    }
    const violationsBefore = this.violations.length;
    this.transcript.push(recordAnswer(recorded, response.status, response.headers.get('content-type'), copy));
    this.seen.push({
      operationId: this.contract.labelOf(method, new URL(url).pathname),
      status: response.status,
    });
    if (response.status >= 500)
      this.violations.push(`${method} ${pathOrUrl}: server error ${response.status}`);
    const contentType = response.headers.get('content-type');
    this.judge({
      operationId: this.seen.at(-1)!.operationId,
      method,
      url,
      params: {},
      key: rawKey,
      ...(otherScheme ? { otherScheme } : {}),
      sent: sentForOracle(undefined, recorded),
      sentBytes: recorded.body?.kind === 'bytes' ? recorded.body.bytes.length : undefined,
      sentHeaders: withoutCredential(headers),
      sentAt,
      receivedAt: Date.now(),
      status: response.status,
      headers: response.headers,
      body: contentType?.includes('json') && copy.length ? safeJson(copy) : copy,
      bytes: copy,
    });
    const request = { method, path: new URL(url).pathname, url, label: this.seen.at(-1)!.operationId };
    RAW_ANSWERS.set(response, { request, bytes: copy });
    this.noteServerError(violationsBefore, { request, status: response.status, bytes: copy });
    return response;
  }

  /**
   * The answer and its body, within the target's limits on time and size; a request that got no
   * whole answer is kept in the transcript and said in words.
   */
  private async send(
    url: URL | string,
    init: RequestInit,
    recorded: RecordedRequest,
    timeout?: CallOptions['timeout'],
  ): Promise<{ response: Response; bytes: Buffer }> {
    if (this.cut?.aborted && !undoing())
      throw new Error(
        `${recorded.method} ${new URL(url).pathname}: not sent: the check was cut at its deadline`,
      );
    try {
      const limits = timeout
        ? { ...this.target, requestTimeoutMs: timeout.ms, timeoutSource: timeout.source }
        : this.target;
      return await boundedFetch(url, init, limits);
    } catch (error) {
      const reason = describeTransportError(error);
      this.transcript.push(recordNoAnswer(recorded, reason));
      throw new Error(`${recorded.method} ${new URL(url).pathname}: no answer: ${reason}`, { cause: error });
    }
  }

  private async pace(): Promise<void> {
    const wait = this.lastRequestAt + this.target.paceMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.lastRequestAt = Date.now();
  }
}

/** An answer whose body was read, as a Response that reads it again (a null-body status keeps none). */
function readAgain(response: Response, bytes: Buffer): Response {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  if (response.status > 599)
    throw new Error(`${response.url}: answered status ${response.status}, which HTTP has not (100-599)`);
  return new Response([101, 103, 204, 205, 304].includes(response.status) ? null : bytes, init);
}

/** The request and body behind each answer of `ApiClient.raw`, so a message about the answer can name them. */
const RAW_ANSWERS = new WeakMap<Response, Pick<ApiResponse, 'request' | 'bytes'>>();

export const rawAnswerOf = (response: Response): Pick<ApiResponse, 'request' | 'bytes'> | undefined =>
  RAW_ANSWERS.get(response);

export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (!(name in params)) throw new Error(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(params[name]);
  });
}

/**
 * A raw Authorization header as it goes on the wire: fetch strips the leading and trailing
 * whitespace of a header value (Fetch, "normalize"; RFC 9110 5.5), a trailing newline included.
 */
const onTheWire = (header: string): string => header.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');

/** The key as the oracle knows it: null for none, undefined for a raw header it cannot read. */
const sentKey = (key: string | null): string | null | undefined =>
  key === null ? null : key.startsWith('!') ? bearerKey(onTheWire(key.slice(1)))?.key : key;

/**
 * The credential sent, as the oracle reads it: the key, the scheme where it is not written
 * `Bearer`, and whether the header carried no `Bearer <token>` at all (another scheme, no space
 * after Bearer, the key alone, Bearer and nothing).
 */
export function sentCredential(key: string | null): Pick<Exchange, 'key' | 'scheme' | 'otherScheme'> {
  if (key === null || !key.startsWith('!')) return { key };
  const found = bearerKey(onTheWire(key.slice(1)));
  if (!found) return { key: undefined, otherScheme: true };
  return { key: found.key, ...(found.scheme === 'Bearer ' ? {} : { scheme: found.scheme }) };
}

/**
 * The key of a `Bearer <key>` header and the scheme as written, with what parts it from the key:
 * an HTTP authentication scheme is matched without case (RFC 9110 11.1; the document's bearerAuth
 * is `type: http`), so `bearer` and `BEARER` carry the key as `Bearer` does. One space parts it
 * (credentials = auth-scheme 1*SP token68, RFC 9110 11.4; RFC 6750 2.1); more spaces or a tab
 * still leave the key readable, and the oracle judges those apart (a target may split at the first
 * space alone, as FastAPI's HTTPBearer does). `scheme` is everything before the key: `Bearer `
 * for the plain form. Undefined for any other header.
 */
function bearerKey(header: string): { scheme: string; key: string } | undefined {
  const found = /^(bearer[ \t]+)(\S+)$/i.exec(header);
  return found ? { scheme: found[1], key: found[2] } : undefined;
}

/** The headers a request carried, as the oracle reads them: the key is given apart, never here. */
function withoutCredential(headers: Headers): Record<string, string> {
  const plain = Object.fromEntries(headers);
  delete plain.authorization;
  return plain;
}

/**
 * The body as the oracle reads it: JSON parsed, a multipart upload (a FormData, or bytes under a
 * multipart Content-Type) as its file's name and size, and a FormData's file's TIFF layout where
 * its directories declare a plain one (a FormData with no file part: its parts' names).
 */
function sentForOracle(json: unknown, { body: recorded, contentType }: RecordedRequest): unknown {
  if (json !== undefined) return json;
  if (recorded?.kind === 'text') return safeJson(Buffer.from(recorded.text));
  if (recorded?.kind === 'bytes') {
    const file = multipartFileOf(recorded.bytes, contentType);
    return file ? { file } : undefined;
  }
  if (recorded?.kind === 'multipart') {
    const file = recorded.fields.find((f) => f.name === 'file' && 'bytes' in f);
    if (file && 'bytes' in file) {
      const layout = tiffLayout(file.bytes);
      return {
        file: { name: wireFilename(file.filename), size: file.bytes.length, ...(layout && { layout }) },
      };
    }
    // a form without a file part: the names of the parts it holds
    return { parts: recorded.fields.map((f) => f.name) };
  }
  return undefined;
}

/**
 * A FormData file's name as it goes on the wire: the multipart/form-data encoding algorithm of the
 * HTML standard writes `"`, CR and LF of a filename as `%22`, `%0D` and `%0A`, and the target reads
 * that name, not the File's.
 */
const wireFilename = (name: string): string =>
  name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

function safeJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes.toString('utf8');
  }
}
