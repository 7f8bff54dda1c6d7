/**
 * The organization each presented API key belongs to, kept in memory so that a request's bearer
 * check costs a hash and a map lookup instead of two or three queries. Exactness is the stores'
 * job: each calls `invalidate()` on every write that can change what a key maps to (a key added,
 * revoked or rotated, an organization created, its plan changed, a reset or a snapshot restore),
 * once when the write is made and again when its transaction ends; the PostgreSQL store also
 * calls `observe(version)` with the database's key version before each lookup, which another
 * instance's committed write has changed (stores/postgres/postgres-state-store.ts).
 *
 * A lookup that began before an invalidation is not kept after it (the generation check): its
 * answer may predate the write. Entries are bounded in number (oldest dropped first) and in age.
 */
import type { Organization } from './organization-record.js';
import type { OrganizationTable } from './state.js';

export interface KeyCacheLimits {
  /** Keys remembered at most; 0 turns the cache off. */
  maxEntries: number;
  /** An entry older than this is looked up again. */
  maxAgeMs: number;
}

export const DEFAULT_KEY_CACHE_LIMITS: KeyCacheLimits = { maxEntries: 10_000, maxAgeMs: 60_000 };

interface Entry {
  org: Organization;
  at: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private version: string | undefined;

  constructor(
    private readonly limits: KeyCacheLimits = DEFAULT_KEY_CACHE_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The organization of the key whose hash is `hash` (undefined: no such key), from memory or from `load`. */
  async lookup(
    hash: string,
    load: () => Promise<Organization | undefined>,
  ): Promise<Organization | undefined> {
    const entry = this.entries.get(hash);
    if (entry && this.now() - entry.at < this.limits.maxAgeMs) return copyOf(entry.org);
    const generation = this.generation;
    const org = await load();
    // Only keys that exist are kept: a flood of made-up keys would otherwise push the real ones out.
    if (org && generation === this.generation && this.limits.maxEntries > 0) {
      // Re-inserted so the Map's order stays oldest-first.
      this.entries.delete(hash);
      this.entries.set(hash, { org: copyOf(org), at: this.now() });
      if (this.entries.size > this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return org;
  }

  /** Forgets every key, and every lookup still under way. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  /** The keys' version as the database holds it now: another one than last seen forgets every key. */
  observe(version: string): void {
    if (version === this.version) return;
    this.version = version;
    this.invalidate();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Reads hand out fresh objects (domain/state.ts): a caller may change what it was given. */
function copyOf(org: Organization): Organization {
  return { ...org, plan: { ...org.plan }, apiKeys: org.apiKeys.map((key) => ({ ...key })) };
}

type KeyWrites = 'insert' | 'setPlan' | 'addKey' | 'removeKey';

/**
 * `table` with each write that can change what a key maps to followed by `afterWrite` (which
 * invalidates, and on the shared database also notifies the other instances in the same transaction).
 */
export function withKeyWritesReported<T extends Pick<OrganizationTable, KeyWrites>>(
  table: T,
  afterWrite: () => Promise<void> | void,
): T {
  const report =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await write(...args);
      await afterWrite();
      return result;
    };
  return {
    ...table,
    insert: report(table.insert.bind(table)),
    setPlan: report(table.setPlan.bind(table)),
    addKey: report(table.addKey.bind(table)),
    removeKey: report(table.removeKey.bind(table)),
  };
}
