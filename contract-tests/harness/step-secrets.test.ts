import { expect, it } from 'vitest';
import type { ServerErrorAnswer } from './api-client.js';
import { stepOf } from './steps.js';

/** A 5xx's body goes into the report (a root cause's text, a failure's message): not a key it echoes. */
const answered = (body: string): ServerErrorAnswer =>
  ({
    status: 500,
    bytes: Buffer.from(body),
    request: { label: 'getShare', method: 'GET', path: '/api/v1/shares/{share_id}' },
  }) as unknown as ServerErrorAnswer;

it('blanks a key or token a server error echoes, and keeps its ids and words', () => {
  const id = '0b8e5c1a-4d2f-4e6a-9c3b-7a1d2e3f4a5b';
  const body = `{"detail":"auth failed for Bearer sk_test_3f9a1c0d5e7b2a4c6e8f0a1b2c3d4e5f","share":"${id}","jwt":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc"}`;
  const said = stepOf(answered(body)).said ?? '';
  expect(said).not.toContain('sk_test_3f9a1c0d5e7b2a4c6e8f0a1b2c3d4e5f');
  expect(said).not.toContain('eyJhbGciOiJIUzI1NiJ9');
  expect(said).toContain(id);
  expect(said).toContain('auth failed for Bearer [redacted]');
  expect(stepOf(answered('{"detail":"storage_cap_images_exceeded"}')).said).toBe(
    '{"detail":"storage_cap_images_exceeded"}',
  );
});
