import { expect, it } from 'vitest';
import { renderExposure } from './exposure-report.js';

it('says of a full journal that any older requests were pushed out, not that some were', () => {
  // full: exactly as many as the journal keeps, which need not have pushed any out
  const full = {
    organization_id: 'org',
    requests: 3,
    since: '2026-11-29T12:00:00.000Z',
    overflowed: true,
    operations: [],
    cases: [],
  };
  const text = renderExposure(full, 'md');
  expect(text).toContain('so any made before 2026-11-29T12:00:00.000Z were pushed out');
  expect(text).not.toMatch(/the older ones, made before .*, were pushed out/);
});
