/**
 * The seed's own content refused names the seed file (ConfigError, exit 2); the store failing while
 * the seed is written is the store's failure: a database that stops answering ends the start as one
 * that does not answer at opening does, and any other error of the store is left as it was.
 */
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import type { StateStore } from '../domain/state.js';
import { DatabaseStartError } from '../stores/postgres/database-wait.js';
import { StoreUnavailableError } from '../stores/postgres/failures.js';
import { Seeding } from './seeding.js';

/** A state whose every transaction fails with `error`, and that was never seeded. */
const failingState = (error: Error) =>
  ({
    transaction: () => Promise.reject(error),
    seed: { seededAt: () => Promise.resolve(undefined) },
  }) as unknown as StateStore;

const seeding = (error: Error) => new Seeding(loadConfig([], {}, {}), failingState(error));

it('a database that stops answering while seeding is reported as the database, not as the seed file', async () => {
  const down = new StoreUnavailableError('connect ECONNREFUSED 127.0.0.1:5432');
  const refused = seeding(down).seedOnce();
  await expect(refused).rejects.toThrow(DatabaseStartError);
  await expect(refused).rejects.toThrow(/state database stopped answering while the seed .* ECONNREFUSED/);
  await expect(refused).rejects.not.toThrow(ConfigError);
});

it("a driver's TypeError while seeding is left as it was, not named as the seed file's", async () => {
  const driver = new TypeError("Cannot read properties of undefined (reading 'query')");
  await expect(seeding(driver).seedOnce()).rejects.toBe(driver);
});
