/** How long the suite waits for one whole answer, and how much of it it reads (target.ts). */
export interface ExchangeLimits {
  requestTimeoutMs: number;
  maxBodyBytes: number;
  /** Where the time limit comes from, said when it runs out (--request-timeout-ms unless given). */
  timeoutSource?: string;
}

/** An exchange that got no whole answer (a limit met, a body cut short): its message says why, in words. */
export class ExchangeError extends Error {}

/**
 * fetch, with the whole exchange (headers and body) bounded in time and the body in size: a target
 * that never answers, drips its body a byte at a time or sends gigabytes (a compression bomb
 * counts as what it inflates to) fails the request that met it, never the run.
 */
export async function boundedFetch(
  url: URL | string,
  init: RequestInit,
  limits: ExchangeLimits,
): Promise<{ response: Response; bytes: Buffer }> {
  const signal = AbortSignal.timeout(limits.requestTimeoutMs);
  const timeout = `within ${limits.requestTimeoutMs} ms (${limits.timeoutSource ?? '--request-timeout-ms'})`;
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal });
  } catch (error) {
    if (signal.aborted) throw new ExchangeError(`the target sent no answer ${timeout}`);
    throw error;
  }
  const read = { bytes: 0 };
  try {
    return { response, bytes: await readBounded(response, limits.maxBodyBytes, read) };
  } catch (error) {
    if (error instanceof ExchangeError) throw error;
    if (!signal.aborted) {
      const cause = ((error as { cause?: unknown }).cause ?? error) as { code?: string; message?: string };
      throw new ExchangeError(
        `the target answered ${response.status} but its body broke off after ${read.bytes} bytes (${cause.code ?? ''}${cause.code ? ': ' : ''}${cause.message ?? String(error)})`,
      );
    }
    throw new ExchangeError(
      `the target answered ${response.status} but did not end its body ${timeout}: ${read.bytes} bytes came`,
    );
  }
}

async function readBounded(response: Response, max: number, read: { bytes: number }): Promise<Buffer> {
  const tooLarge = (size: string) =>
    new ExchangeError(
      `the target answered ${response.status} with a body past the ${max} bytes the suite reads of one answer (--max-body-bytes): ${size}`,
    );
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > max) {
    await response.body?.cancel();
    throw tooLarge(`Content-Length ${declared}`);
  }
  const chunks: Uint8Array[] = [];
  // Leaving the loop early (a throw) cancels the stream, so the rest is never downloaded.
  for await (const chunk of response.body ?? []) {
    read.bytes += chunk.length;
    if (read.bytes > max) throw tooLarge(`${read.bytes} bytes came, and more were coming`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
