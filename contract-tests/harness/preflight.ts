/**
 * Before any check runs: every key the run was given is tried once on GET /models, so a missing or
 * rejected key stops the run with one line naming its variable, instead of failing every check.
 * HTTP only, like the rest of the suite.
 */
import { boundedFetch } from './bounded-fetch.js';
import { exchangeLimits } from './target.js';
import { describeTransportError } from './transport-errors.js';

export const KEY_VARIABLES = {
  main: 'CONTRACT_API_KEY',
  other: 'CONTRACT_OTHER_ORG_API_KEY',
  tiny: 'CONTRACT_TINY_API_KEY',
  second: 'CONTRACT_SECOND_API_KEY',
} as const;

export type KeyRole = keyof typeof KEY_VARIABLES;

/** How each key is named to the user: its variable, or how it was found (`--compare`'s prefixed ones). */
export type KeyNames = Record<KeyRole, string>;

/**
 * Where a key holds a character no API key has (a bearer token is printable ASCII without spaces,
 * RFC 6750 `b64token`): typically a key shortened with '…' when it was copied. fetch would refuse
 * it with "Cannot convert argument to a ByteString", which names neither the key nor the reason.
 */
function strayCharacter(key: string): string | undefined {
  const characters = [...key];
  const index = characters.findIndex((c) => c < '!' || c > '~');
  if (index < 0) return undefined;
  const c = characters[index];
  const code = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const shown = c.trim() ? `'${c}' (${code})` : code;
  return `${shown} at character ${index + 1}`;
}

/** The one-line reason the run cannot start, or undefined when every key given works. */
export async function keyProblem(
  baseUrl: string,
  keys: Partial<Record<KeyRole, string>>,
  names: KeyNames = KEY_VARIABLES,
): Promise<string | undefined> {
  if (!keys.main)
    return `${names.main} is not set: the main organization's key is needed to check ${baseUrl}`;
  const given = (Object.entries(keys) as Array<[KeyRole, string | undefined]>).filter(
    (entry): entry is [KeyRole, string] => Boolean(entry[1]),
  );
  for (const [role, key] of given) {
    const stray = strayCharacter(key);
    if (stray)
      return `${names[role]} holds ${stray}, which no API key has (printable ASCII, no spaces): copy the whole key`;
  }
  for (const [role, key] of given) {
    let status: number;
    try {
      const { response } = await boundedFetch(
        `${baseUrl}/api/v1/models`,
        { headers: { authorization: `Bearer ${key}` } },
        exchangeLimits(process.env),
      );
      status = response.status;
    } catch (err) {
      return `${baseUrl} cannot be reached: ${describeTransportError(err)}`;
    }
    if (status === 401 || status === 403)
      return `${names[role]} was rejected by ${baseUrl} (GET /api/v1/models answered ${status})`;
  }
  return undefined;
}
