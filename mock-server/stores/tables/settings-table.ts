/**
 * Settings, written once for both engines (the StateStore port's SettingsTable, domain/state.ts):
 * keys are the mock's own names; values may carry a client's text, so they are stored as client text.
 */
import type { SettingsTable } from '../../domain/state.js';
import { clientText, fromClientText } from './client-text.js';
import { column, records, type Row, run, type Works } from './work.js';

const toSetting = (r: Row) => ({ key: r.key as string, value: fromClientText(r.value) });

/** Keys that start with the argument (CAST: PostgreSQL cannot tell length()'s type from a bare parameter). */
const PREFIXED = 'substr(key, 1, length(CAST(? AS TEXT))) = ?';

export const settingsTable: Works<SettingsTable> = {
  *get(key) {
    const [value] = yield* column('SELECT value FROM settings WHERE key = ?', key);
    return value === undefined ? undefined : fromClientText(value);
  },
  *set(key, value) {
    yield* run(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      key,
      clientText(value),
    );
  },
  *delete(key) {
    yield* run('DELETE FROM settings WHERE key = ?', key);
  },
  withPrefix: (prefix) =>
    records(`SELECT key, value FROM settings WHERE ${PREFIXED} ORDER BY key`, toSetting, prefix, prefix),
  *deleteWithPrefix(prefix) {
    yield* run(`DELETE FROM settings WHERE ${PREFIXED}`, prefix, prefix);
  },
};
