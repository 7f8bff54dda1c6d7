/**
 * One read of the versions for every request of this instance that needs them at about the same
 * time, as a database groups commits. A request that needs them joins the group being gathered;
 * the group is sent once this turn of the event loop is over and no read is on its way, and every
 * request that joined shares its answer. A request never joins a read already on its way: that one
 * may have been sent before the request began, and missed a write acknowledged just before.
 *
 * Why: on this kind of machine (a virtual one, where waking another core is an exit to the host)
 * every round trip's wake-ups of the database's backend and of this instance cost more than the
 * read itself; a group pays them once, and its requests' answers then leave together, so nginx
 * wakes once for them too (the same reason http/loop-turn-batches.ts handles a turn's requests
 * together). A request waits at most for the read on its way, then one turn.
 */
export class GroupedReads<T> {
  private onItsWay: Promise<unknown> = Promise.resolve();
  private gathering?: Promise<T>;

  constructor(private readonly send: () => Promise<T>) {}

  read(): Promise<T> {
    return (this.gathering ??= this.onItsWay
      .then(() => new Promise((turnOver) => setImmediate(turnOver)))
      .then(() => {
        this.gathering = undefined;
        const read = this.send();
        this.onItsWay = read.then(
          () => undefined,
          () => undefined,
        );
        return read;
      }));
  }
}
