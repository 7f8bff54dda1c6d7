import { behaviourMutants } from './behaviour/index.js';
import { documentMutants } from './document-mutants.js';
import { exportMutants } from './export-mutants.js';
import type { Mutant } from './mutant.js';
import { semanticMutants } from './semantic-mutants.js';

/** Every mutant, in a stable order (the document's, the catalogue's, then the interface's rules'); ids are unique. */
export function allMutants(): Mutant[] {
  const mutants = [...documentMutants(), ...exportMutants(), ...semanticMutants(), ...behaviourMutants()];
  const seen = new Set<string>();
  for (const { id } of mutants) {
    if (seen.has(id)) throw new Error(`two mutants share the id ${id}`);
    seen.add(id);
  }
  return mutants;
}

/** A deterministic sample of `size` mutants drawn with `seed` (a small LCG, so any Node draws the same). */
export function sampleMutants(mutants: Mutant[], size: number, seed: number): Mutant[] {
  if (size >= mutants.length) return mutants;
  let state = seed >>> 0 || 1;
  const next = () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0);
  const order = mutants.map((m, i) => ({ m, i, key: next() }));
  order.sort((a, b) => a.key - b.key);
  return order
    .slice(0, size)
    .sort((a, b) => a.i - b.i)
    .map(({ m }) => m);
}
