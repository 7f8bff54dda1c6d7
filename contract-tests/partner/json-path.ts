/**
 * The JSON paths of Pact's matching rules, the part of them a recorded contract uses: `$`, `.key`,
 * `['key']`, `[3]` and `[*]` (every item of an array).
 */

export type PathStep = string | number;
const EVERY = '*';

export function parsePath(path: string): PathStep[] {
  if (!path.startsWith('$')) throw new Error(`JSON path must start with $: ${path}`);
  const steps: PathStep[] = [];
  const pattern = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\*)\]|\[(\d+)\]/y;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const at = pattern.lastIndex;
    const found = pattern.exec(path);
    if (!found) throw new Error(`JSON path not understood at character ${at + 1}: ${path}`);
    if (found[4] !== undefined) steps.push(Number(found[4]));
    else steps.push(found[3] ? EVERY : (found[1] ?? found[2].replace(/\\(.)/g, '$1')));
  }
  return steps;
}

export function formatPath(steps: PathStep[]): string {
  return (
    '$' +
    steps
      .map((s) =>
        typeof s === 'number'
          ? `[${s}]`
          : s === EVERY
            ? '[*]'
            : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)
              ? `.${s}`
              : `['${s.replace(/'/g, "\\'")}']`,
      )
      .join('')
  );
}

/** Every value at the path, with its concrete path (`[*]` expanded to each index). */
export function valuesAt(value: unknown, path: string): Array<{ at: string; value: unknown }> {
  let found: Array<{ at: string; value: unknown }> = [{ at: '$', value }];
  for (const step of parsePath(path)) {
    const next: typeof found = [];
    for (const { at, value: node } of found) {
      if (step === EVERY || typeof step === 'number') {
        if (Array.isArray(node))
          node.forEach((item, i) => {
            if (step === EVERY || step === i) next.push({ at: `${at}[${i}]`, value: item });
          });
      } else if (node && typeof node === 'object' && !Array.isArray(node) && step in node)
        next.push({ at: at + formatPath([step]).slice(1), value: (node as Record<string, unknown>)[step] });
    }
    found = next;
  }
  return found;
}

/** The JSON type Pact's `type` matcher compares: null, array, object, string, number or boolean. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
