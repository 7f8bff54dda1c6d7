/**
 * What a request reads before its operation (domain/state.ts RequestReads), from PostgreSQL in one
 * round trip when nothing changed: the keys' version and the control plane's version, read together
 * in one read that the requests needing them at about the same time share (grouped-reads.ts); the
 * key's organization, the clocks' offsets and the injected faults then come from this instance's
 * memory, kept by version. Every write to them, on any instance, changes its
 * version in its own transaction (api_key_version; control_version, shared-tables.ts), so a request
 * that begins after the write committed reads the new version and loads them afresh: exact, where a
 * notification (LISTEN/NOTIFY) arrives on its own connection, possibly after the next request does.
 * The same read takes the database's snapshot, under which the request's table reads may then be
 * answered from memory (snapshot-memo.ts).
 */
import { hashApiKey } from '../../domain/api-keys.js';
import { type Fault, faultMatches } from '../../domain/control-records.js';
import type { KeyCache } from '../../domain/key-cache.js';
import type { Organization } from '../../domain/organization-record.js';
import type { ClockOffsetTable, FaultTable, RequestReads } from '../../domain/state.js';
import type { RequestScope, Sql } from './connection.js';
import { GroupedReads } from './grouped-reads.js';
import { takeHit } from './shared-tables.js';

/** The control plane's state every request reads, as of one version of it. */
interface ControlState {
  offsets: Map<string, number>;
  /** Oldest first, their hits as they were when read: a hit is taken from the table (takeHit). */
  faults: Fault[];
}

interface Versions {
  keys: string;
  control: string;
  /** The database's snapshot (pg_current_snapshot) the read saw, and the read's number (SharedReads.sent). */
  snapshot: string;
  sentAt: number;
}

export interface SharedReadSources {
  sql: Sql;
  keyCache: KeyCache;
  /** Reads the tables: a key's organization by its hash. */
  organizationOfKey(hash: string): Promise<Organization | undefined>;
  clockOffsets: Pick<ClockOffsetTable, 'get' | 'all'>;
  faults: Pick<FaultTable, 'list' | 'take'>;
}

const VERSIONS_READ =
  'SELECT k.token AS keys, c.token AS control, pg_current_snapshot()::text AS snapshot' +
  ' FROM api_key_version k, control_version c';

/** One per store: the control state this instance keeps, and the views that read through it. */
export class SharedReads {
  private kept?: { version: string; state: Promise<ControlState> };
  private readonly versions: GroupedReads<Versions>;
  /** Versions reads sent so far: a read's number says which of two is the newer (snapshot-memo.ts). */
  private sent = 0;

  constructor(private readonly from: SharedReadSources) {
    const { sql } = from;
    this.versions = new GroupedReads(async () => {
      const sentAt = ++this.sent;
      // Shared by every request of its group: it belongs to none of them.
      const [row] = await sql.detached(() => sql.rows(VERSIONS_READ));
      return {
        keys: row.keys as string,
        control: row.control as string,
        snapshot: row.snapshot as string,
        sentAt,
      };
    });
  }

  /** A view for one request: the first read that needs the versions reads them, the others reuse them. */
  view(): RequestReads {
    const { sql, keyCache, organizationOfKey, clockOffsets, faults } = this.from;
    const scope: RequestScope = {};
    let versions: Promise<Versions> | undefined;
    const readVersions = () =>
      (versions ??= this.versions.read().then((read) => {
        scope.snapshot = read.snapshot;
        scope.sentAt = read.sentAt;
        return read;
      }));
    const control = async () => this.controlAt((await readVersions()).control);
    return {
      async organizationForKey(key, hash = hashApiKey(key)) {
        // A transaction sees its own uncommitted writes: it reads the tables, never the cache.
        if (sql.inTransaction()) return organizationOfKey(hash);
        keyCache.observe((await readVersions()).keys);
        return keyCache.lookup(hash, () => organizationOfKey(hash));
      },
      clockOffsets: {
        async get(organizationId) {
          if (sql.inTransaction()) return clockOffsets.get(organizationId);
          return (await control()).offsets.get(organizationId);
        },
      },
      faults: {
        async take(operationId, organizationId, draw) {
          if (sql.inTransaction()) return faults.take(operationId, organizationId, draw);
          // Most requests match no fault: no statement at all then.
          const matching = (await control()).faults.filter((f) =>
            faultMatches(f, operationId, organizationId),
          );
          return matching.length === 0 ? undefined : takeHit(sql, matching, draw);
        },
      },
      within: (work) => sql.withinRequest(scope, work),
    };
  }

  /**
   * The state as of `version`, loaded when it is not the one kept. Loaded after the version was
   * read, so it is at least as new as that version: a write that lands in between only makes the
   * next request load again.
   */
  private controlAt(version: string): Promise<ControlState> {
    if (this.kept?.version === version) return this.kept.state;
    const state = this.load();
    const kept = (this.kept = { version, state });
    // A failed load is not kept: the next request tries again.
    state.catch(() => {
      if (this.kept === kept) this.kept = undefined;
    });
    return state;
  }

  private async load(): Promise<ControlState> {
    const offsets = await this.from.clockOffsets.all();
    return {
      offsets: new Map(offsets.map((o) => [o.organizationId, o.offsetMs])),
      faults: await this.from.faults.list(),
    };
  }
}
