/**
 * What is still open once every section has ended. Each section stops the processes and closes the
 * connections it opened, also when it fails; a resource left over (a child's pipe, a socket of a
 * request a failed section never finished) would keep the runner alive after its last line, so the
 * runner names it and exits instead of hanging.
 */

/** The process's own standard streams, open for the whole run by design. */
const OWN_STREAMS = new Set(['TTYWrap']);

/** The resources of `process.getActiveResourcesInfo()` that nothing should hold at the end, counted by type. */
export function lingering(resources: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const r of resources) if (!OWN_STREAMS.has(r)) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([type, n]) => (n > 1 ? `${n} x ${type}` : type));
}
