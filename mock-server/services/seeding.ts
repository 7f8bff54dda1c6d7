import { readFile } from 'node:fs/promises';
import { ConfigError, type MockConfig } from '../config.js';
import { seedKeysLoaded } from '../exposure.js';
import { isStoreUnavailable } from '../domain/errors.js';
import { applySeed, parseSeed, seedRows, type Seed, type SeedRows } from '../domain/seed.js';
import type { StateStore } from '../domain/state.js';
import { DatabaseStartError } from '../stores/postgres/database-wait.js';

/** The seed file, parsed; one that cannot be read or is not JSON stops the start in one line naming it. */
async function readSeed(file: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`--seed ${file} cannot be read (${(error as { code?: string }).code})`);
  }
  try {
    return parseSeed(text, file);
  } catch (error) {
    throw new ConfigError(`--seed ${file}: ${(error as Error).message}`);
  }
}

/** Loads the seed file into the state, and keeps what it held for the seed's well-known keys. */
export class Seeding {
  private loaded: Seed | undefined;

  constructor(
    private readonly config: MockConfig,
    private readonly state: StateStore,
  ) {}

  /** The seed's well-known keys still valid, in clear, by organization id: the state keeps only hashes. */
  async keys(): Promise<Map<string, string[]>> {
    const keys = new Map<string, string[]>();
    for (const o of this.loaded?.organizations ?? []) {
      const valid = [];
      for (const key of o.api_keys)
        if ((await this.state.organizationForKey(key))?.id === o.id) valid.push(key);
      keys.set(o.id, valid);
    }
    return keys;
  }

  /** Loads the seed into an empty state and marks it seeded, in one transaction. */
  async seed(): Promise<void> {
    const { config, state } = this;
    const parsed = await readSeed(config.seedFile);
    // Off loopback the seed's published keys stay out unless asked for (exposure.ts).
    const content = seedKeysLoaded(config)
      ? parsed
      : { ...parsed, organizations: parsed.organizations.map((o) => ({ ...o, api_keys: [] })) };
    this.loaded = content;
    let rows: SeedRows;
    try {
      rows = seedRows(content);
    } catch (error) {
      // What the seed holds, refused (a model it cannot run, a field missing), before any write.
      throw new ConfigError(`--seed ${config.seedFile}: ${(error as Error).message}`);
    }
    await state.transaction(async () => {
      await applySeed(state, rows);
      await state.seed.markSeeded(new Date().toISOString());
    });
  }

  /**
   * Instances starting at once on an empty shared database each find it unseeded: the first to
   * commit seeds it, and the others' seeding fails on what it already holds; they go on with it.
   * A database that stops answering meanwhile ends the start in one line, as at opening.
   */
  async seedOnce(): Promise<void> {
    try {
      await this.seed();
    } catch (error) {
      const seeded = await this.state.seed.seededAt().catch(() => undefined);
      if (seeded !== undefined) return;
      if (!isStoreUnavailable(error)) throw error;
      throw new DatabaseStartError(
        `the state database stopped answering while the seed (${this.config.seedFile}) was loaded: ${error.message}`,
        { cause: error },
      );
    }
  }

  /** A kept data folder: its seed's keys, for the banner, when the seed file is still there. */
  async readKept(): Promise<void> {
    const { seedFile } = this.config;
    this.loaded = await readFile(seedFile, 'utf8').then(
      (text) => parseSeed(text, seedFile),
      () => undefined,
    );
  }
}
