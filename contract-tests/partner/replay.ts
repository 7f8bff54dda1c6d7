import path from 'node:path';
import {
  ApiClient,
  newCheckRecord,
  type ApiResponse,
  type CallOptions,
  type CheckRecord,
} from '../harness/api-client.js';
import { Cleanup, leftLines, reportDir } from '../harness/cleanup.js';
import { ConsistencyLedger } from '../harness/consistency.js';
import { deleteOwnImage, revokeOwnShare } from '../harness/flows.js';
import type { OpenApiContract } from '../harness/openapi-contract.js';
import { writeReproducer } from '../harness/reproducer.js';
import { presetTiff } from '../harness/sample-images.js';
import type { Target } from '../harness/target.js';
import { formatPath, jsonType, parsePath, valuesAt } from './json-path.js';
import { pathParams } from './path-template.js';
import { NAMESPACE, type PactInteraction, type PactRule, type PartnerContract } from './pact-file.js';
import { ProviderStates } from './provider-states.js';

export interface InteractionResult {
  key: string;
  description: string;
  operationId: string;
  outcome: 'pass' | 'fail' | 'skipped';
  error?: string;
  skipReason?: string;
  /** What a passing result still says: what the replay's cleanup left on the target. */
  note?: string;
  /** The reproducer script of a failure, relative to the report folder. */
  reproducer?: string;
  calls: Array<{ operationId: string; status: number }>;
  durationMs: number;
}

const VARIABLE = /\$\{([^}]+)\}/g;

/**
 * A partner's contract is held to what the partner relies on and to the document; the suite's own
 * consistency rules (one answer against the earlier ones) are the suite's checks, not the partner's:
 * a field it narrowed away must not fail it through them.
 */
class NoConsistencyRules extends ConsistencyLedger {
  override observe(): string[] {
    return [];
  }
}

/**
 * Replays a partner's contract against a target, in order: each interaction's ids taken from the
 * answers of the earlier ones, its provider states set up through the control plane (or the
 * interaction skipped with the reason), its answer held to the status, the relied-on fields and
 * the document. What the replay creates is deleted at the end, pass or fail, and written to the
 * ledger first (as every check of the suite does); a cleanup that did not end clean is a last result.
 */
export async function replayContract(
  pact: PartnerContract,
  contract: OpenApiContract,
  target: Target,
): Promise<InteractionResult[]> {
  // judged on what the partner relies on only: neither the ledger's rules nor the oracle's
  const record: CheckRecord = { ...newCheckRecord(), ledger: new NoConsistencyRules(), oracle: undefined };
  const api = new ApiClient(contract, target, target.keys.main, record);
  const states = new ProviderStates(api, target.capabilities);
  const cleanup = new Cleanup();
  const bindings = new Map<string, string>();
  /** Which interaction hands out each variable, for the reason a later one is blocked. */
  const boundBy = new Map<string, string>();
  for (const interaction of pact.interactions)
    for (const variable of Object.keys(interaction.comments[NAMESPACE].binds ?? {}))
      boundBy.set(variable, interaction.description);
  const results: InteractionResult[] = [];
  try {
    for (const interaction of pact.interactions) {
      const started = Date.now();
      const seenBefore = record.seen.length;
      const result = await replayOne(interaction, {
        api,
        record,
        states,
        cleanup,
        bindings,
        boundBy,
        target,
      });
      results.push({
        key: interaction.key,
        description: interaction.description,
        operationId: interaction.comments[NAMESPACE].operationId,
        ...result,
        calls: record.seen.slice(seenBefore),
        durationMs: Date.now() - started,
      });
    }
  } finally {
    const cleaned = await cleanUp(cleanup, record);
    if (cleaned) results.push(cleaned);
  }
  return results;
}

/**
 * The replay's cleanup, as a result when it did not end clean: failed when it met a server error
 * or what is not the run's (as a check's cleanup fails its check), passed with a note naming what
 * a refused or "not now" delete or revoke left on the target (as such a cleanup fails no check).
 */
async function cleanUp(cleanup: Cleanup, record: CheckRecord): Promise<InteractionResult | undefined> {
  const [started, violationsBefore, seenBefore] = [Date.now(), record.violations.length, record.seen.length];
  await cleanup.run();
  const errors = record.violations.slice(violationsBefore);
  const said = [...errors, ...leftLines(cleanup.left)].join('\n');
  if (!said) return undefined;
  return {
    key: 'cleanup',
    description: 'cleanup of what the replay created',
    operationId: 'cleanup',
    ...(errors.length ? { outcome: 'fail', error: said } : { outcome: 'pass', note: said }),
    calls: record.seen.slice(seenBefore),
    durationMs: Date.now() - started,
  };
}

interface Replay {
  api: ApiClient;
  record: CheckRecord;
  states: ProviderStates;
  cleanup: Cleanup;
  bindings: Map<string, string>;
  boundBy: Map<string, string>;
  target: Target;
}

type Outcome = Pick<InteractionResult, 'outcome' | 'error' | 'skipReason' | 'reproducer'>;

async function replayOne(interaction: PactInteraction, run: Replay): Promise<Outcome> {
  const ext = interaction.comments[NAMESPACE];
  const missing = [...variablesOf(interaction)].filter((v) => !run.bindings.has(v));
  if (missing.length)
    return {
      outcome: 'skipped',
      skipReason: `blocked: needs ${missing.map((v) => `\${${v}}`).join(', ')} from ${[...new Set(missing.map((v) => run.boundBy.get(v) ?? 'no interaction'))].join(', ')}, which did not hand it out`,
    };
  const teardowns: Array<() => Promise<void>> = [];
  const violationsBefore = run.record.violations.length;
  try {
    for (const state of interaction.providerStates ?? []) {
      const setup = await run.states.setUp(state);
      if ('skip' in setup) return { outcome: 'skipped', skipReason: setup.skip };
      teardowns.push(setup.teardown);
    }
    const response = await send(interaction, run);
    const problems = judge(interaction, response);
    // A 5xx the partner's contract expects (an injected fault) is the state it asked for, not a failure.
    const expectedServerError = response.status >= 500 && response.status === interaction.response.status;
    problems.push(
      ...run.record.violations
        .slice(violationsBefore)
        .filter(
          (v) =>
            !(expectedServerError && v.startsWith(`${ext.operationId}: server error ${response.status}`)),
        )
        .map((v) => `the answer breaks the document: ${v}`),
    );
    if (!problems.length)
      for (const [variable, at] of Object.entries(ext.binds ?? {})) {
        const value = valuesAt(response.body, at)[0]?.value;
        if (typeof value === 'string') run.bindings.set(variable, value);
        else problems.push(`hands out no \${${variable}} at ${at}`);
      }
    if (problems.length) return failed(interaction, run, problems.join('\n'));
    return { outcome: 'pass' };
  } catch (err) {
    return failed(interaction, run, (err as Error).message);
  } finally {
    for (const teardown of teardowns.reverse()) await teardown().catch(() => undefined);
  }
}

/** Sends the interaction's request (a poll until its state field comes back as recorded). */
async function send(interaction: PactInteraction, run: Replay): Promise<ApiResponse> {
  const ext = interaction.comments[NAMESPACE];
  const { api, target } = run;
  const options: CallOptions = ext.requestUrl
    ? handedOutAddress(ext.pathTemplate, substitute(ext.requestUrl, run.bindings))
    : { params: pathParams(ext.pathTemplate, interaction.request.path) };
  const expression = interaction.request.generators?.path?.expression;
  if (expression)
    Object.assign(options.params!, pathParams(ext.pathTemplate, substitute(expression, run.bindings)));
  if (ext.file) {
    const form = new FormData();
    form.append(
      ext.file.field,
      new Blob([presetTiff().bytes], { type: 'image/tiff' }),
      target.namePrefix + ext.file.name,
    );
    options.rawBody = form;
    // Prism's proxy corrupts binary multipart bodies (harness/flows.ts): around it, as the suite does.
    options.baseUrl = target.directBaseUrl;
  } else if (interaction.request.body) {
    options.body = requestBody(interaction, run);
  }
  const until = ext.pollUntil ?? {};
  const deadline = Date.now() + target.pollTimeoutMs;
  for (;;) {
    const response = await api.call(ext.operationId, options);
    track(ext.operationId, response, run, options.body);
    const reached = Object.entries(until).every(
      ([at, value]) => valuesAt(response.body, at)[0]?.value === value,
    );
    if (reached || response.status !== interaction.response.status) return response;
    if (Date.now() > deadline)
      throw new Error(
        `polled for ${target.pollTimeoutMs} ms and ${Object.entries(until)
          .map(
            ([at, value]) =>
              `${at} never became ${JSON.stringify(value)} (last: ${JSON.stringify(valuesAt(response.body, at)[0]?.value)})`,
          )
          .join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, target.pollIntervalMs));
  }
}

/**
 * The call to an address an earlier answer handed out: its root (a share page's may sit outside
 * the API's base URL) and the parameters its path gives the template. It is opened as the answer
 * hands it to anyone, without the key.
 */
function handedOutAddress(template: string, address: string): CallOptions {
  const url = new URL(address);
  const depth = template.split('/').length - 1;
  const segments = url.pathname.split('/');
  const path = segments.slice(-depth).join('/');
  return {
    params: pathParams(template, `/${path}`),
    baseUrl: url.origin + segments.slice(0, -depth).join('/'),
    key: null,
  };
}

/** The recorded body with bound ids put in, and a name the run's prefix marks as its own. */
function requestBody(interaction: PactInteraction, run: Replay): unknown {
  const body = structuredClone(interaction.request.body?.content);
  for (const [at, generator] of Object.entries(interaction.request.generators?.body ?? {}))
    setAt(body, at, substitute(generator.expression, run.bindings));
  const named = body as { name?: unknown } | undefined;
  // both create an image by name (a resumable upload's JSON body too): cleanup deletes prefixed ones only
  const creates = ['createImage', 'uploadImage'].includes(interaction.comments[NAMESPACE].operationId);
  if (creates && typeof named?.name === 'string') named.name = run.target.namePrefix + named.name;
  return body;
}

/**
 * What the answer breaks of the interaction: its status, and each field the partner relies on
 * (present, of the recorded type, or null where its rule allows null). A field under a nullable
 * object or array that the answer holds as null is not missing: the container's rule allowed it.
 */
function judge(interaction: PactInteraction, response: ApiResponse): string[] {
  const expected = interaction.response;
  if (response.status !== expected.status)
    return [`answered ${response.status}; the partner expects ${expected.status}`];
  const rules = expected.matchingRules?.body ?? {};
  const problems: string[] = [];
  for (const [at, rule] of Object.entries(rules)) {
    const example = valuesAt(expected.body?.content, at)[0]?.value;
    const nullAllowed = allowsNull(rule);
    const found = valuesAt(response.body, at);
    if (!found.length) {
      if (!underNullContainer(at, rules, response.body))
        problems.push(`the partner relies on ${at}, which the answer does not have`);
      continue;
    }
    for (const { at: where, value } of found) {
      if (example === undefined || jsonType(value) === jsonType(example)) continue;
      if (value === null && nullAllowed) continue;
      problems.push(
        `the partner relies on ${where} being ${jsonType(example)}${nullAllowed ? ' or null' : ''}; the answer has ${jsonType(value)}`,
      );
    }
  }
  return problems;
}

const allowsNull = (rule: PactRule): boolean => rule.matchers.some((m) => m.match === 'null');

/** Whether an enclosing path the rules allow to be null holds null in the answer. */
function underNullContainer(at: string, rules: Record<string, PactRule>, body: unknown): boolean {
  const steps = parsePath(at);
  for (let n = steps.length - 1; n >= 0; n--) {
    const enclosing = formatPath(steps.slice(0, n));
    const rule = rules[enclosing];
    if (rule && allowsNull(rule) && valuesAt(body, enclosing).some(({ value }) => value === null))
      return true;
  }
  return false;
}

/**
 * Deletes what the replay creates, at the end; the ledger holds it first (--cleanup-only). A share
 * is revoked only once it reads as of the segmentation the replayed request asked it for.
 */
function track(operationId: string, response: ApiResponse, run: Replay, sent: unknown): void {
  if (response.status !== 200) return;
  const body = response.body as { image?: { id?: string }; id?: string };
  const image =
    operationId === 'uploadImage' ? body.image?.id : operationId === 'createImage' ? body.id : undefined;
  if (image)
    run.cleanup.add(() => deleteOwnImage(run.target.namePrefix, run.api, image), {
      kind: 'image',
      id: image,
      owner: 'main',
      baseUrl: run.target.directBaseUrl,
      namePrefix: run.target.namePrefix,
    });
  const segmentationId = (sent as { segmentation_id?: unknown } | undefined)?.segmentation_id;
  if (operationId === 'createShare' && body.id && typeof segmentationId === 'string') {
    const share = body.id;
    run.cleanup.add(() => revokeOwnShare(run.api, share, segmentationId), {
      kind: 'share',
      id: share,
      owner: 'main',
      baseUrl: run.target.directBaseUrl,
      segmentationId,
    });
  }
}

function failed(interaction: PactInteraction, run: Replay, error: string): Outcome {
  const message = `${interaction.description}: ${error}`;
  let reproducer: string | undefined;
  try {
    const slug = interaction.key.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const file = writeReproducer(path.join(reportDir(), 'reproducers'), `partner-${slug}`, {
      title: interaction.description,
      clauses: [interaction.key],
      error: message,
      baseUrls: [...new Set([run.target.baseUrl, run.target.directBaseUrl])],
      exchanges: run.record.transcript,
      secrets: [run.target.keys.main, run.target.adminToken],
    });
    reproducer = path.relative(reportDir(), file);
  } catch {
    // a reproducer that cannot be written must not hide the failure itself
  }
  return { outcome: 'fail', error: message, reproducer };
}

function variablesOf(interaction: PactInteraction): Set<string> {
  const generators = interaction.request.generators;
  const expressions = [
    interaction.comments[NAMESPACE].requestUrl,
    generators?.path?.expression,
    ...Object.values(generators?.body ?? {}).map((g) => g.expression),
  ];
  return new Set(expressions.flatMap((e) => [...(e ?? '').matchAll(VARIABLE)].map((m) => m[1])));
}

function substitute(expression: string, bindings: Map<string, string>): string {
  return expression.replace(VARIABLE, (_m, name: string) => bindings.get(name) ?? '');
}

function setAt(body: unknown, at: string, value: string): void {
  const steps = parsePath(at);
  let node = body as Record<string | number, unknown>;
  for (const step of steps.slice(0, -1)) node = node?.[step] as Record<string | number, unknown>;
  if (node && typeof node === 'object') node[steps.at(-1)!] = value;
}
