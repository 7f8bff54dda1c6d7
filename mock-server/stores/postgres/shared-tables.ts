/**
 * What every instance must see alike, in PostgreSQL alone (SQLite's one process keeps them in its
 * memory, stores/memory/): counters and injected faults (the StateStore port's tables,
 * domain/state.ts); the request journal is journal-batches.ts. Rate windows are each instance's own
 * (memory/rate-windows.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Fault, FaultSpec } from '../../domain/control-records.js';
import type { CounterTable, FaultTable } from '../../domain/state.js';
import { clientText } from '../tables/client-text.js';
import type { Row } from '../tables/work.js';
import type { Sql } from './connection.js';

export function counterTable(sql: Sql): CounterTable {
  return {
    async increment(key) {
      // One statement: the row lock of the upsert orders concurrent increments, none is lost.
      const [value] = await sql.column<string>(
        `INSERT INTO counters (key, value) VALUES ($1, 1)
         ON CONFLICT (key) DO UPDATE SET value = counters.value + 1 RETURNING value`,
        [key],
      );
      return Number(value);
    },
    async get(key) {
      const [value] = await sql.column<string>('SELECT value FROM counters WHERE key = $1', [key]);
      return value === undefined ? 0 : Number(value);
    },
    async delete(key) {
      await sql.rows('DELETE FROM counters WHERE key = $1', [key]);
    },
    async clear() {
      await sql.rows('DELETE FROM counters');
    },
  };
}

/**
 * A new token in control_version, in the transaction of the write it follows: every instance's next
 * request sees the version move and reads the control plane's state again (request-reads.ts).
 */
export async function controlChanged(sql: Sql): Promise<void> {
  await sql.rows('UPDATE control_version SET token = $1', [randomUUID()]);
}

/** `write` and the control plane's version moved, in one transaction. */
export function changingControl<T>(sql: Sql, write: () => Promise<T>): Promise<T> {
  return sql.transaction(async () => {
    const result = await write();
    await controlChanged(sql);
    return result;
  });
}

export function faultTable(sql: Sql): FaultTable {
  return {
    async add(spec) {
      const fault: Fault = { ...spec, id: randomUUID(), hits: 0 };
      await changingControl(sql, async () => {
        await sql.rows(
          'INSERT INTO faults (id, operation_id, organization_id, spec, times) VALUES ($1, $2, $3, $4, $5)',
          [
            fault.id,
            clientText(spec.operationId),
            spec.organizationId === undefined ? null : clientText(spec.organizationId),
            JSON.stringify(spec),
            spec.times ?? null,
          ],
        );
      });
      return fault;
    },
    async list() {
      return (await sql.rows('SELECT * FROM faults ORDER BY seq')).map(toFault);
    },
    clear() {
      return changingControl(sql, async () => (await sql.rows('DELETE FROM faults RETURNING 1')).length);
    },
    async take(operationId, organizationId, draw) {
      // The candidates are read without a lock (most requests find none: one indexed read).
      const candidates = await sql.rows(
        `SELECT * FROM faults WHERE operation_id = $1 AND (organization_id IS NULL OR organization_id = $2)
         ORDER BY seq`,
        [clientText(operationId), organizationId === undefined ? null : clientText(organizationId)],
      );
      return takeHit(sql, candidates.map(toFault), draw);
    },
  };
}

const toFault = (r: Row): Fault => ({
  ...(JSON.parse(r.spec as string) as FaultSpec),
  id: r.id as string,
  hits: r.hits as number,
});

/**
 * The first of `candidates` (faults that match the request, oldest first, read without a lock)
 * whose probability draw passes and whose hit is still there to take: the hit is taken by a
 * conditional UPDATE, which holds the row and re-reads it first, so of two instances taking the last
 * hit of a `times: 1` fault only one counts it; the other moves on to the next candidate.
 */
export async function takeHit(sql: Sql, candidates: Fault[], draw: () => number): Promise<Fault | undefined> {
  for (const { id, probability } of candidates) {
    if (probability !== undefined && !(draw() < probability)) continue;
    const taken = await sql.transaction(async () => {
      const [row] = await sql.rows(
        `UPDATE faults SET hits = hits + 1
         WHERE id = $1 AND (times IS NULL OR hits < times)
         RETURNING *`,
        [id],
      );
      if (!row) return undefined;
      const fault = toFault(row);
      if (fault.times !== undefined && fault.hits >= fault.times) {
        await sql.rows('DELETE FROM faults WHERE id = $1', [fault.id]);
        await controlChanged(sql);
      }
      return fault;
    });
    if (taken) return taken;
  }
  return undefined;
}
