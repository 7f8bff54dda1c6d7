import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hashApiKey, keyIdOf } from '../domain/api-keys.js';
import type { Organization } from '../domain/organizations.js';
import type { StateStore } from '../domain/state.js';

/** `keyId` names the key presented (its id, derived from its hash): what requests are counted by. */
type AuthOutcome = { ok: true; org: Organization; keyId: string } | { ok: false; detail: string };

/** `Authorization: Bearer <API_KEY>`, looked up among the organizations' keys. */
export async function authenticate(
  req: IncomingMessage,
  keys: Pick<StateStore, 'organizationForKey'>,
): Promise<AuthOutcome> {
  const header = req.headers.authorization;
  if (!header) return { ok: false, detail: 'Not authenticated: send Authorization: Bearer <API_KEY>' };
  const key = bearerCredentials(header);
  if (key === undefined)
    return { ok: false, detail: "Invalid Authorization header: expected 'Bearer <API_KEY>'" };
  // Hashed once: the lookup and the key's id (what its requests are counted by) both start from it.
  const hash = hashApiKey(key);
  const org = await keys.organizationForKey(key, hash);
  if (!org) return { ok: false, detail: 'Invalid API key' };
  return { ok: true, org, keyId: keyIdOf(hash) };
}

/**
 * The credentials of an `Authorization: Bearer <credentials>` header, or undefined for another
 * scheme or none. The one reading of the header for the API's keys and the control plane's token
 * alike: the scheme name is case-insensitive (RFC 9110 11.1), as FastAPI's HTTPBearer compares it.
 */
export function bearerCredentials(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * Whether `header` is `Bearer <adminToken>`. Both sides are hashed first, so the comparison takes
 * the same time whatever the header holds and however long it is: a timing difference would let a
 * caller find the token character by character.
 */
export function isAdminToken(header: string | undefined, adminToken: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const presented = bearerCredentials(header);
  return timingSafeEqual(digest(presented ?? ''), digest(adminToken)) && presented !== undefined;
}
