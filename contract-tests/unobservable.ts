/**
 * The clause catalogue's other half: what the mutation harness (`npm run mutate`) changes in an
 * answer that no black-box client can tell from a correct answer, each with why. A mutant whose id
 * matches an entry and survives is reported as not observable, apart from the score; one that
 * matches and is killed counts as killed. Everything else that survives lowers the score until a
 * check kills it or an entry here says why none can.
 */
export interface Unobservable {
  /** Mutant ids (test-support/mutation/) this covers. */
  mutants: RegExp;
  /** The clause it would belong to, where there is one. */
  clause?: string;
  why: string;
}

export const UNOBSERVABLE: Unobservable[] = [
  {
    mutants: /^\w+\.(4\d\d|5\d\d)\.body\.detail:string$/,
    clause: 'ERR-01',
    why: 'An error detail is prose: the interface promises {detail: string}, not its words, so another sentence is as right as this one.',
  },
];

/** The entry that excuses a surviving mutant, if any. */
export function unobservable(mutantId: string): Unobservable | undefined {
  return UNOBSERVABLE.find((entry) => entry.mutants.test(mutantId));
}
