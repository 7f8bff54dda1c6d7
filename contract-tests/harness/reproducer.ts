import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RecordedExchange } from './transcript.js';

/**
 * A runnable bash script that sends a failed check's requests again with curl: base URL and keys
 * come from environment variables (never the keys themselves), ids and part URLs the target handed
 * out are read back from its own answers, each answer is printed, and the script ends with the
 * failure the suite saw and what it expected.
 */
export interface ReproducerInput {
  title: string;
  clauses: string[];
  error: string;
  /** Roots the requests were sent to (the target's, and the direct one around Prism). */
  baseUrls: string[];
  exchanges: RecordedExchange[];
  /** The run's own keys and tokens: written as `<key>` wherever the error or an answer quotes one. */
  secrets?: Array<string | undefined>;
}

interface Capture {
  variable: string;
  exchange: number;
  path: Array<string | number>;
}

/** Every string leaf of a JSON value with its path. */
function leaves(
  value: unknown,
  at: Array<string | number> = [],
  out: Array<[string, Array<string | number>]> = [],
) {
  if (typeof value === 'string') out.push([value, at]);
  else if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...at, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) leaves(v, [...at, k], out);
  return out;
}

const REUSABLE =
  /^(https?:\/\/\S+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9_-]{16,})$/;
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const heredocSafe = (text: string) => text.replace(/[\\`$]/g, (c) => `\\${c}`);
const comment = (text: string) =>
  text
    .split('\n')
    .map((line) => `# ${line}`)
    .join('\n');

/** The state field a poll waits on, and the value the suite's read saw. */
function pollState(exchange: RecordedExchange): { field: string; value: string } | undefined {
  const body = exchange.json as Record<string, unknown> | undefined;
  for (const field of ['status', 'upload_status'])
    if (body && typeof body[field] === 'string') return { field, value: body[field] as string };
  return undefined;
}

type Escape = (text: string) => string;
/** A URL or header as a double-quoted shell word holds it. */
const urlSafe: Escape = (t) => t.replace(/["\\$`]/g, (c) => `\\${c}`);

/**
 * Values the target handed out (ids, part URLs) and the variables that capture them: a later
 * request that repeats one is written with its variable, read from the answer it came from.
 */
class CapturedValues {
  private readonly produced = new Map<string, { exchange: number; path: Array<string | number> }>();
  private readonly captures = new Map<string, Capture>();

  constructor(private readonly baseUrls: string[]) {}

  /** Replaces values an earlier answer produced with the variable that captures them, then the roots. */
  substitute(text: string, before: number, escape: Escape): string {
    let out = escape(text);
    const known = [...this.produced.entries()]
      .filter(([, p]) => p.exchange < before)
      .sort((a, b) => b[0].length - a[0].length);
    for (const [value, origin] of known) {
      const escaped = escape(value);
      if (!out.includes(escaped)) continue;
      let capture = this.captures.get(value);
      if (!capture) {
        capture = { variable: `V${this.captures.size + 1}`, ...origin };
        this.captures.set(value, capture);
      }
      out = out.split(escaped).join(`\${${capture.variable}}`);
    }
    for (const root of this.baseUrls) out = out.split(escape(root)).join('${BASE_URL}');
    return out;
  }

  /** Notes the reusable values of one answer, for the requests after it. */
  learn(exchange: RecordedExchange, index: number): void {
    for (const [value, at] of leaves(exchange.json))
      if (REUSABLE.test(value) && !this.produced.has(value))
        this.produced.set(value, { exchange: index, path: at });
  }

  /** Each captured value is read right after the answer it came from. */
  addReads(steps: string[][]): void {
    for (const capture of this.captures.values())
      steps[capture.exchange].push(
        `${capture.variable}=$(value ${shellQuote(JSON.stringify(capture.path))} "$OUT/${capture.exchange + 1}")`,
      );
  }
}

/**
 * Keys sent as raw headers (throw-away organizations') and the run's own never appear in the
 * script's comments: this writes them as `<key>`.
 */
function keyRedactor(input: ReproducerInput): (text: string) => string {
  const sentKeys = [
    ...input.exchanges.map((e) => /^Bearer +(\S{8,})$/i.exec(e.request.rawAuthorization ?? '')?.[1]),
    ...(input.secrets ?? []),
  ].filter((k): k is string => !!k && k.length >= 8);
  return (text) => sentKeys.reduce((out, key) => out.split(key).join('<key>'), text);
}

/** Whether `b` reads again what `a` read, waiting on a state field (a poll). */
const samePoll = (a?: RecordedExchange, b?: RecordedExchange) =>
  !!a &&
  !!b &&
  a.request.method === 'GET' &&
  b.request.method === 'GET' &&
  a.request.url === b.request.url &&
  !!pollState(b);

/** What one script is made of while its steps are written. */
interface ScriptParts {
  values: CapturedValues;
  files: Array<{ name: string; bytes: Buffer }>;
  /** BASE_URL and the key variables the requests send, in the order met. */
  variables: Set<string>;
  /** Padded bodies the next request sends: the line writing each out, and the file it writes. */
  prepare: Array<{ write: string; file: string }>;
}

/** curl's arguments for one request (its files added to `parts.files`), and the body it reads from stdin. */
function curlArguments(
  request: RecordedExchange['request'],
  index: number,
  parts: ScriptParts,
): { args: string[]; heredoc?: string } {
  const { values } = parts;
  const args: string[] = [`-X ${request.method}`, `"${values.substitute(request.url, index, urlSafe)}"`];
  if (request.keyVariable) {
    parts.variables.add(request.keyVariable);
    args.push(`-H "Authorization: ${request.scheme ?? 'Bearer '}\${${request.keyVariable}}"`);
  } else if (request.rawAuthorization !== undefined)
    // A throw-away organization's key is read back from the answer that created it.
    args.push(`-H "${values.substitute(`Authorization: ${request.rawAuthorization}`, index, urlSafe)}"`);
  if (request.contentType && request.body?.kind !== 'multipart')
    args.push(`-H ${shellQuote(`Content-Type: ${request.contentType}`)}`);
  let heredoc: string | undefined;
  if (request.body?.kind === 'text') {
    args.push('--data-binary @-');
    heredoc = values.substitute(request.body.text, index, heredocSafe);
  } else if (request.body?.kind === 'bytes') {
    const file = fileWord(`${index + 1}-body.bin`, request.body.bytes, parts);
    args.push(`--data-binary "@${file}"`);
  } else if (request.body?.kind === 'multipart') {
    for (const field of request.body.fields) {
      if ('bytes' in field) {
        const file = fileWord(
          `${index + 1}-${field.filename.replace(/[^A-Za-z0-9._-]/g, '_')}`,
          field.bytes,
          parts,
        );
        args.push(`-F "${field.name}=@${file};filename=${field.filename.replace(/["$`\\]/g, '')}"`);
      } else args.push(`-F ${shellQuote(`${field.name}=${field.value}`)}`);
    }
  }
  return { args, heredoc };
}

/** Zero bytes at a body's end from which the script writes them itself, not the reports folder. */
const PADDING_WRITTEN = 1024 * 1024;

/**
 * Where the script reads a body it sends: its file beside the script, or, for a body ending in a
 * megabyte or more of zeros (UP-01's 100 MB upload), the file the script writes from its head and
 * that many zeros, so the reports hold no copy of the padding.
 */
function fileWord(name: string, bytes: Buffer, parts: ScriptParts): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  if (bytes.length - end < PADDING_WRITTEN) {
    parts.files.push({ name, bytes });
    return `$FILES/${name}`;
  }
  parts.files.push({ name: `${name}.head`, bytes: bytes.subarray(0, end) });
  const file = `$OUT/${name}`;
  parts.prepare.push({
    write: `{ cat "$FILES/${name}.head"; head -c ${bytes.length - end} /dev/zero; } > "${file}"`,
    file,
  });
  return file;
}

/**
 * The lines that send one request again, print its answer and say what the suite saw. A poll (the
 * same GET again and again) is replayed as a loop until it reaches the state the suite's last read
 * of it saw, at the target's own pace.
 */
function replayStep(
  exchanges: RecordedExchange[],
  index: number,
  parts: ScriptParts,
  redact: (text: string) => string,
): string[] {
  const exchange = exchanges[index];
  const { request } = exchange;
  const step: string[] = [];
  const poll = samePoll(exchanges[index - 1], exchange) ? pollState(exchange) : undefined;
  const { args, heredoc } = curlArguments(request, index, parts);
  // The heading names this run's ids (read from its own answers), not the suite's.
  const shownPath = parts.values.substitute(new URL(request.url).pathname, index, urlSafe);
  const padded = parts.prepare.splice(0);
  step.push(`echo; echo "# ${index + 1}. ${request.method} ${shownPath}"`, ...padded.map((p) => p.write));
  const curl = `curl -sS -o "$OUT/${index + 1}" -w 'HTTP %{http_code}\\n' ${args.join(' ')}${heredoc !== undefined ? ` <<JSON\n${heredoc}\nJSON` : ''}`;
  step.push(
    poll
      ? `for try in $(seq 300); do ${curl}; [ "$(value '["${poll.field}"]' "$OUT/${index + 1}")" = ${shellQuote(poll.value)} ] && break; sleep 1; done`
      : curl,
  );
  // a padded body is as large as it was sent (100 MB): gone once sent
  if (padded.length) step.push(`rm -f ${padded.map((p) => `"${p.file}"`).join(' ')}`);
  step.push(`show "$OUT/${index + 1}"`);
  step.push(
    comment(
      redact(
        exchange.transportError !== undefined
          ? `the suite saw: no answer, ${exchange.transportError}`
          : `the suite saw: HTTP ${exchange.status}${exchange.text ? ` ${exchange.text.slice(0, 300)}` : ''}`,
      ),
    ),
  );
  return step;
}

/** The script's opening: what it reproduces, the variables it needs, and its two helpers. */
function scriptPreamble(input: ReproducerInput, variables: Set<string>): string[] {
  const lines: string[] = [];
  lines.push('#!/usr/bin/env bash');
  lines.push(`# Reproducer written by the contract suite: ${input.title}`);
  lines.push(`# Clauses: ${input.clauses.join(', ')}`);
  lines.push(
    `# Run: ${[...variables].map((v) => `${v}=...`).join(' ')} bash ${'$0'.replace('$0', 'this-script.sh')}`,
  );
  lines.push("# Needs bash, curl and node. Ids and part URLs are read from the target's own answers.");
  lines.push('set -u');
  // the suite's own name for the root is taken too, so the variables a run was given run its scripts
  lines.push('BASE_URL="${BASE_URL:-${CONTRACT_BASE_URL:-}}"');
  for (const variable of variables)
    lines.push(
      `: "\${${variable}:?set ${variable}${variable === 'BASE_URL' ? ' (or CONTRACT_BASE_URL)' : ''}}"`,
    );
  // as the suite reads the root: no trailing slash; and said before any request, since the
  // variable may be left in the shell from another target (a mock run's script sent to production)
  lines.push('BASE_URL="${BASE_URL%/}"');
  lines.push('echo "Sending to BASE_URL=$BASE_URL"');
  lines.push('FILES="$(cd "$(dirname "$0")" && pwd)/$(basename "$0" .sh).files"');
  lines.push('OUT=$(mktemp -d)');
  lines.push(
    `value() { node -e 'let v = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8")); for (const k of JSON.parse(process.argv[1])) v = v[k]; console.log(v)' "$1" "$2"; }`,
  );
  // A body is printed when it is text; an image or a ZIP would fill the terminal with bytes.
  lines.push(
    `show() { node -e 'const b = require("fs").readFileSync(process.argv[1]); const binary = b.subarray(0, 4096).some((c) => c < 9 || (c > 13 && c < 32)); console.log(binary ? \`(\${b.length} bytes, not text: \${process.argv[1]})\` : b.subarray(0, 2000).toString("utf8"))' "$1"; }`,
  );
  return lines;
}

/**
 * The failure the suite saw: printed at the end of a run as well as read in the file. Every line
 * is a comment, so no line of it can end the heredoc.
 */
function whatBroke(input: ReproducerInput, redact: (text: string) => string): string[] {
  return [
    '',
    'echo',
    "cat <<'WHAT_BROKE'",
    '# What broke, and what was expected (when the suite ran it):',
    comment(redact(input.error.slice(0, 3000))),
    'WHAT_BROKE',
  ];
}

export function reproducerScript(input: ReproducerInput): {
  script: string;
  files: Array<{ name: string; bytes: Buffer }>;
} {
  const parts: ScriptParts = {
    values: new CapturedValues(input.baseUrls),
    files: [],
    variables: new Set<string>(['BASE_URL']),
    prepare: [],
  };
  const redact = keyRedactor(input);
  // A poll's reads before its last are replayed by the loop of the last: their steps stay empty.
  const steps = input.exchanges.map((exchange, index) => {
    if (samePoll(exchange, input.exchanges[index + 1])) return [];
    const step = replayStep(input.exchanges, index, parts, redact);
    parts.values.learn(exchange, index);
    return step;
  });
  parts.values.addReads(steps);
  const lines = scriptPreamble(input, parts.variables);
  for (const step of steps) lines.push('', ...step);
  lines.push(...whatBroke(input, redact));
  return { script: `${lines.join('\n')}\n`, files: parts.files };
}

/** Writes the script (and the files it sends) under `dir`; answers the script's path. */
export function writeReproducer(dir: string, slug: string, input: ReproducerInput): string {
  const { script, files } = reproducerScript(input);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${slug}.sh`);
  writeFileSync(file, script, { mode: 0o755 });
  if (files.length) {
    const filesDir = path.join(dir, `${slug}.files`);
    mkdirSync(filesDir, { recursive: true });
    for (const f of files) writeFileSync(path.join(filesDir, f.name), f.bytes);
  }
  return file;
}
