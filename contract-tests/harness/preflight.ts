/**
 * Before any check runs: every key the run was given is tried once on GET /models, so a missing or
 * rejected key stops the run with one line naming its variable, instead of failing every check.
 * HTTP only, like the rest of the suite.
 */
export const KEY_VARIABLES = {
  main: 'CONTRACT_API_KEY',
  other: 'CONTRACT_OTHER_ORG_API_KEY',
  tiny: 'CONTRACT_TINY_API_KEY',
} as const;

/** The one-line reason the run cannot start, or undefined when every key given works. */
export async function keyProblem(
  baseUrl: string,
  keys: Partial<Record<keyof typeof KEY_VARIABLES, string>>,
): Promise<string | undefined> {
  if (!keys.main)
    return `${KEY_VARIABLES.main} is not set: the main organization's key is needed to check ${baseUrl}`;
  for (const [role, key] of Object.entries(keys) as Array<[keyof typeof KEY_VARIABLES, string | undefined]>) {
    if (!key) continue;
    let status: number;
    try {
      const response = await fetch(`${baseUrl}/api/v1/models`, {
        headers: { authorization: `Bearer ${key}` },
      });
      status = response.status;
      await response.arrayBuffer();
    } catch (err) {
      return `${baseUrl} cannot be reached: ${(err as Error).message}`;
    }
    if (status === 401 || status === 403)
      return `${KEY_VARIABLES[role]} was rejected by ${baseUrl} (GET /api/v1/models answered ${status})`;
  }
  return undefined;
}
