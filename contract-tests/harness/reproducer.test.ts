import { execFile, execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
    // the step's heading too: the ids of the run at hand, not the suite's
    expect(script).toContain('echo "# 5. GET /api/v1/predict/${V2}"');
  });

  it('replay a poll as one loop until the state the suite saw last', () => {
    expect(script.match(/curl [^\n]*\/api\/v1\/predict\/\$\{V2\}/g)).toHaveLength(1);
    expect(script).toMatch(
      /for try in \$\(seq 300\); do curl .*\[ "\$\(value '\["status"\]' "\$OUT\/5"\)" = 'COMPLETED' \] && break; sleep 1; done/,
    );
  });

  it('keep the files sent, a deliberate header as sent, and end with what was expected', () => {
    expect(files).toEqual([{ name: '1-cells.tif', bytes: Buffer.from('II*\0') }]);
    expect(script).toContain(`-H "Authorization: Token abc"`);
    expect(script.trimEnd()).toMatch(/\n# expected 401 to be 200\nWHAT_BROKE$/);
  });

  it('when run, prints text bodies, says how big a binary one is, and ends with what broke', async () => {
    const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const server = http.createServer((req, res) => {
      if (req.url!.startsWith('//')) return void res.writeHead(404).end('a double slash');
      const png = req.url!.endsWith('.png');
      res.writeHead(200, { 'content-type': png ? 'image/png' : 'application/json' });
      res.end(png ? PNG : '{"status":"COMPLETED"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reproducer-'));
    try {
      const file = writeReproducer(dir, 'meas-08', {
        title: 'overlay',
        clauses: ['MEAS-08'],
        error: `MEAS-08: the overlay is upside down\nsent with ${KEY}`,
        baseUrls: [BASE],
        secrets: [KEY],
        exchanges: [
          exchange({ method: 'GET', url: `${BASE}/api/v1/models`, keyVariable: 'CONTRACT_API_KEY' }, 200, {
            status: 'COMPLETED',
          }),
          {
            request: {
              method: 'GET',
              url: `${BASE}/api/v1/export/s/overlay.png`,
              keyVariable: 'CONTRACT_API_KEY',
            },
            status: 200,
            contentType: 'image/png',
          },
        ],
      });
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(
          'bash',
          [file],
          { env: { ...process.env, BASE_URL: '', CONTRACT_BASE_URL: `${url}/`, CONTRACT_API_KEY: 'k' } },
          (err, out) => (err ? reject(err) : resolve(out)),
        ),
      );
      // the root as the suite reads it, said before the first request
      expect(stdout.indexOf(`Sending to BASE_URL=${url}\n`)).toBeLessThan(stdout.indexOf('# 1. GET'));
      expect(stdout).toContain('{"status":"COMPLETED"}');
      expect(stdout).toMatch(/\(12 bytes, not text: \S+\/2\)/);
      expect(stdout).not.toContain('PNG');
      expect(stdout.trimEnd()).toMatch(
        /# What broke, and what was expected \(when the suite ran it\):\n# MEAS-08: the overlay is upside down\n# sent with <key>$/,
      );
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a body padded with a megabyte or more of zeros itself, keeping only its head beside it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reproducer-'));
    const padded = Buffer.concat([Buffer.from('MM\0*'), Buffer.alloc(2 * 1024 * 1024)]);
    try {
      const file = writeReproducer(dir, 'up-01', {
        title: 'large',
        clauses: ['UP-01'],
        error: 'x',
        baseUrls: [BASE],
        exchanges: [
          exchange(
            {
              method: 'POST',
              url: `${BASE}/api/v1/upload`,
              keyVariable: 'CONTRACT_API_KEY',
              body: { kind: 'multipart', fields: [{ name: 'file', filename: 'big.tif', bytes: padded }] },
            },
            413,
          ),
        ],
      });
      expect(readFileSync(path.join(dir, 'up-01.files', '1-big.tif.head'))).toEqual(Buffer.from('MM\0*'));
      const script = readFileSync(file, 'utf8');
      // the script's own copy is the body sent: its head and the zeros, written where it sends from
      const write =
        /^\{ cat "\$FILES\/1-big.tif.head"; head -c (\d+) \/dev\/zero; \} > "\$OUT\/1-big.tif"$/m.exec(
          script,
        );
      expect(Number(write?.[1])).toBe(2 * 1024 * 1024);
      expect(script).toContain('-F "file=@$OUT/1-big.tif;filename=big.tif"');
      expect(script).toContain('rm -f "$OUT/1-big.tif"');
      execFileSync('bash', ['-n', file]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
