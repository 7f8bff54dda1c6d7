/** What a check sent and received, in order, for the reproducer of a failure (reproducer.ts). */
export interface RecordedRequest {
  method: string;
  url: string;
  /** The environment variable holding the key sent, or null when no key was sent. */
  keyVariable: string | null;
  /** What went before the key when it was not `Bearer ` (the scheme's case changed, or spaces or a tab after it, on purpose). */
  scheme?: string;
  /** A raw Authorization header the check sent on purpose (a malformed one), never a real key. */
  rawAuthorization?: string;
  contentType?: string;
  body?:
    | { kind: 'text'; text: string }
    | { kind: 'bytes'; bytes: Buffer }
    | {
        kind: 'multipart';
        fields: Array<{ name: string; value: string } | { name: string; filename: string; bytes: Buffer }>;
      };
}

export interface RecordedExchange {
  request: RecordedRequest;
  status: number;
  contentType: string | null;
  /** The answer as text when it is text (JSON, CSV, HTML, XML), shortened. */
  text?: string;
  /** Parsed JSON answer, for finding the ids later requests reuse. */
  json?: unknown;
  /** Why no answer came, when none did (the connection failed); `status` is then 0. */
  transportError?: string;
}

const TEXT_LIMIT = 4000;

/** Turns a request body into something a script can send again. */
export async function recordBody(body: RequestInit['body'] | undefined): Promise<RecordedRequest['body']> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return { kind: 'text', text: body };
  if (body instanceof FormData) {
    const fields: Array<{ name: string; value: string } | { name: string; filename: string; bytes: Buffer }> =
      [];
    for (const [name, value] of body.entries()) {
      if (typeof value === 'string') fields.push({ name, value });
      else
        fields.push({ name, filename: (value as File).name, bytes: Buffer.from(await value.arrayBuffer()) });
    }
    return { kind: 'multipart', fields };
  }
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return { kind: 'bytes', bytes: Buffer.from(body) };
  return { kind: 'text', text: String(body) };
}

export function recordAnswer(
  request: RecordedRequest,
  status: number,
  contentType: string | null,
  bytes: Buffer,
): RecordedExchange {
  const textual =
    /json|text|xml|html/.test(contentType ?? '') || (bytes.length > 0 && bytes.length < 200 && !contentType);
  const text = textual ? bytes.toString('utf8') : undefined;
  let json: unknown;
  if (text && (contentType ?? '').includes('json')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return {
    request,
    status,
    contentType,
    text: text && text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text,
    json,
  };
}

/** A request that got no answer: the transcript keeps it, since it is often the one that broke. */
export function recordNoAnswer(request: RecordedRequest, reason: string): RecordedExchange {
  return { request, status: 0, contentType: null, transportError: reason };
}
