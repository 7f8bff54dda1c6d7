import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reproducerScript, writeReproducer } from './reproducer.js';
import type { RecordedExchange } from './transcript.js';

const BASE = 'http://127.0.0.1:9999';
const KEY = 'sk_test_secret_key_never_in_a_script_0000';
const IMAGE = '11111111-2222-4333-8444-555555555555';
const PREDICTION = '66666666-7777-4888-9999-aaaaaaaaaaaa';

const exchange = (
  request: RecordedExchange['request'],
  status: number,
  json?: unknown,
): RecordedExchange => ({
  request,
  status,
  contentType: json ? 'application/json' : null,
  text: json ? JSON.stringify(json) : undefined,
  json,
});

const poll = (status: string) =>
  exchange(
    { method: 'GET', url: `${BASE}/api/v1/predict/${PREDICTION}`, keyVariable: 'CONTRACT_API_KEY' },
    200,
    {
      prediction_id: PREDICTION,
      status,
    },
  );

const transcript: RecordedExchange[] = [
  exchange(
    {
      method: 'POST',
      url: `${BASE}/api/v1/upload`,
      keyVariable: 'CONTRACT_API_KEY',
      body: {
        kind: 'multipart',
        fields: [{ name: 'file', filename: 'cells.tif', bytes: Buffer.from('II*\0') }],
      },
    },
    200,
    { image: { id: IMAGE } },
  ),
  exchange(
    {
      method: 'POST',
      url: `${BASE}/api/v1/predict`,
      keyVariable: 'CONTRACT_API_KEY',
      contentType: 'application/json',
      body: { kind: 'text', text: JSON.stringify({ image_id: IMAGE, model_id: 'm' }) },
    },
    200,
    { prediction_id: PREDICTION, status: 'submitted' },
  ),
  poll('SUBMITTED'),
  poll('STARTED'),
  poll('COMPLETED'),
  exchange(
    { method: 'GET', url: `${BASE}/api/v1/models`, keyVariable: null, rawAuthorization: 'Token abc' },
    401,
    {
      detail: 'no',
    },
  ),
];

describe('reproducer scripts', () => {
  it("read a throw-away organization's key from the answer that created it, never writing it", () => {
    const THROWAWAY = 'sk_test_throwaway_0123456789abcdef';
    const { script } = reproducerScript({
      title: 't',
      clauses: ['CAP-05'],
      error: 'e',
      baseUrls: [BASE],
      exchanges: [
        exchange({ method: 'POST', url: `${BASE}/__mock/organizations`, keyVariable: null }, 200, {
          id: IMAGE,
          api_keys: [THROWAWAY],
        }),
        exchange(
          {
            method: 'GET',
            url: `${BASE}/api/v1/models`,
            keyVariable: null,
            rawAuthorization: `Bearer ${THROWAWAY}`,
          },
          200,
          [],
        ),
      ],
    });
    expect(script).not.toContain(THROWAWAY);
    expect(script).toContain(`V1=$(value '["api_keys",0]' "$OUT/1")`);
    expect(script).toContain('-H "Authorization: Bearer ${V1}"');
  });

  const { script, files } = reproducerScript({
    title: 'a check',
    clauses: ['PRED-02'],
    error: 'expected 401 to be 200',
    baseUrls: [BASE],
    exchanges: transcript,
  });

  it('name the base URL and keys by variable, never by value', () => {
    expect(script).not.toContain(BASE);
    expect(script).not.toContain(KEY);
    expect(script).toContain('"${BASE_URL}/api/v1/upload"');
    expect(script).toContain('-H "Authorization: Bearer ${CONTRACT_API_KEY}"');
    expect(script).toContain(': "${CONTRACT_API_KEY:?set CONTRACT_API_KEY}"');
  });

  it('read ids back from the answers that produced them', () => {
    expect(script).toContain(`V1=$(value '["image","id"]' "$OUT/1")`);
    expect(script).toContain('{"image_id":"${V1}","model_id":"m"}');
    expect(script).toContain('/api/v1/predict/${V2}');
    expect(script).not.toContain(`/api/v1/predict/${PREDICTION}"`);
  });

  it('replay a poll as one loop until the state the suite saw last', () => {
    expect(script.match(/\/api\/v1\/predict\/\$\{V2\}/g)).toHaveLength(1);
    expect(script).toMatch(
      /for try in \$\(seq 300\); do curl .*\[ "\$\(value '\["status"\]' "\$OUT\/5"\)" = 'COMPLETED' \] && break; sleep 1; done/,
    );
  });

  it('keep the files sent, a deliberate header as sent, and end with what was expected', () => {
    expect(files).toEqual([{ name: '1-cells.tif', bytes: Buffer.from('II*\0') }]);
    expect(script).toContain(`-H "Authorization: Token abc"`);
    expect(script.trimEnd().endsWith('# expected 401 to be 200')).toBe(true);
  });

  it('is valid bash, written with its files beside it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reproducer-'));
    try {
      const file = writeReproducer(dir, 'pred-02-a-check', {
        title: 'a check',
        clauses: ['PRED-02'],
        error: 'x',
        baseUrls: [BASE],
        exchanges: transcript,
      });
      execFileSync('bash', ['-n', file]);
      expect(readFileSync(path.join(dir, 'pred-02-a-check.files', '1-cells.tif'))).toEqual(
        Buffer.from('II*\0'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
