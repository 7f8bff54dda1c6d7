/**
 * Why a mutant changed no answer in its run, for the report: a generated edit whose answers the
 * checks received (so a sequence drives its path: the files are listed) but where the edit made
 * no difference to them, or a behaviour mutant whose condition no check's sequence meets (not
 * driven: a gap, and input for the model-based exploration).
 */
const REASONS: Array<[RegExp, string]> = [
  [
    /^behaviour:/,
    "not driven: its trigger answers reached the files listed, but no check's sequence meets the rule's condition (see the mutant's summary)",
  ],
  [/^sabotage:/, "not driven: the case's condition never arose in its files"],
  [
    /:stale$/,
    'driven: the field held the same value in every read of the same resource the files made (an id, a name, a creation time never moves), so the first value is the right one',
  ],
  [
    /:drop$/,
    'driven: the field was absent or null in every answer the files received (optional, not set in their sequences)',
  ],
  [
    /:swap-/,
    'driven: the two fields held equal values, or one was absent, in every answer the files received',
  ],
  [/:array-shorter$/, 'driven: the array was empty in every answer the files received'],
];

export function unchangedReason(mutantId: string): string {
  return (
    REASONS.find(([pattern]) => pattern.test(mutantId))?.[1] ??
    'driven: its answers reached the files listed, and the edit left each as it was'
  );
}
