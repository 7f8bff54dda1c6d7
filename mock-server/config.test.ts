import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, helpText, loadConfig, resolveUrls, type MockConfig } from './config.js';
import { OPTIONS } from './config-options.js';
import { startMockServer } from './server.js';

describe('configuration', () => {
  it('takes flags over environment over defaults', () => {
    expect(loadConfig([], {}).port).toBe(8000);
    expect(loadConfig([], { PORT: '9001' }).port).toBe(9001);
    expect(loadConfig(['--port', '9002'], { PORT: '9001' }).port).toBe(9002);
    expect(loadConfig(['--port=9003']).port).toBe(9003);
  });

  it('names the bad option or value', () => {
    expect(() => loadConfig(['--prot', '1'])).toThrow(ConfigError);
    expect(() => loadConfig(['--prot', '1'])).toThrow(/unknown option '--prot'/);
    expect(() => loadConfig([], { PORT: 'eighty' })).toThrow(
      /--port \/ PORT must be a non-negative number, got 'eighty'/,
    );
    expect(() => loadConfig(['--port'])).toThrow(/--port needs a value/);
  });

  it('refuses at start a value that would fail later: out of range, a fraction, empty, not a choice', () => {
    const refused =
      (argv: string[], env: NodeJS.ProcessEnv = {}) =>
      () =>
        loadConfig(argv, env);
    expect(refused(['--port', '70000'])).toThrow(/--port \/ PORT must be at most 65535, got '70000'/);
    expect(refused(['--port', '1.5'])).toThrow(/--port \/ PORT must be a whole number from 0, got '1.5'/);
    expect(refused([], { PORT: '' })).toThrow(/--port \/ PORT must be a non-negative number, got ''/);
    expect(refused([], { MAX_UPLOAD_BYTES: ' ' })).toThrow(/MAX_UPLOAD_BYTES must be a non-negative number/);
    // Past 2^31-1 ms Node runs a timer after 1 ms: the delay would be none at all.
    expect(refused(['--prediction-start-delay-ms', '3000000000'])).toThrow(
      /--prediction-start-delay-ms \/ PREDICTION_START_DELAY_MS must be at most 2147483647, got '3000000000'/,
    );
    expect(refused(['--presign-expiry-seconds', '1e15'])).toThrow(/must be at most 604800, got '1e15'/);
    expect(refused(['--presign-expiry-seconds', '0'])).toThrow(/must be a whole number from 1, got '0'/);
    expect(refused(['--log-level', 'loud'])).toThrow(
      /--log-level \/ LOG_LEVEL must be one of fatal, .*, got 'loud'/,
    );
    expect(refused(['--object-store', 'ftp'])).toThrow(
      /--object-store \/ OBJECT_STORE must be one of embedded, s3/,
    );
    expect(refused([], { S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      /S3_FORCE_PATH_STYLE must be one of true, false/,
    );
    expect(refused(['--public-base-url', 'mock.example.com'])).toThrow(
      /--public-base-url \/ PUBLIC_BASE_URL must be an http:\/\/ or https:\/\/ URL, got 'mock.example.com'/,
    );
    expect(refused([], { STORAGE_URL: 'ftp://x' })).toThrow(/--storage-url \/ STORAGE_URL must be an http/);
    expect(loadConfig(['--port', '65535', '--share-base-url', 'https://s.example.com/x']).port).toBe(65535);
  });

  it('refuses a decoder budget no legal file fits in, naming the least that can work', () => {
    expect(() => loadConfig(['--decoder-memory-mb', '0.001'], {})).toThrow(
      /^--decoder-memory-mb \/ DECODER_MEMORY_MB must be at least 256, got '0.001'$/,
    );
    expect(() => loadConfig([], { DECODER_TIME_BUDGET_MS: '0' })).toThrow(
      /DECODER_TIME_BUDGET_MS must be at least 1000, got '0'/,
    );
    expect(() => loadConfig(['--max-decoded-bytes', '0.5'], {})).toThrow(/must be at least 1, got '0.5'/);
    expect(() => loadConfig(['--max-image-pixels', '0'], {})).toThrow(/PIXELS must be at least 1, got '0'/);
    expect(() => loadConfig(['--max-upload-bytes', '0'], {})).toThrow(
      /^--max-upload-bytes \/ MAX_UPLOAD_BYTES must be at least 1, got '0'$/,
    );
    expect(loadConfig(['--decoder-memory-mb', '256', '--decoder-time-budget-ms', '1000'], {})).toMatchObject({
      decoderMemoryMb: 256,
      decoderTimeBudgetMs: 1000,
    });
  });

  it('refuses a seed file, a snapshot, a host or a token it cannot use, in one line naming it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cellseg-config-'));
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const start = (config: Partial<MockConfig>) =>
      startMockServer({ port: 0, logLevel: 'silent', ...config });
    try {
      for (const [seedFile, problem] of [
        [dir, `--seed ${dir} cannot be read (EISDIR)`],
        [path.join(dir, 'none.json'), 'cannot be read (ENOENT)'],
        [file('bad.json', '{bad'), 'bad.json: Expected property name'],
        [file('null.json', 'null'), 'expected "base_models" and "organizations" arrays'],
        [
          file('model.json', '{"base_models":[{}],"organizations":[]}'),
          'model.json: model undefined: params',
        ],
        [file('org.json', '{"base_models":[],"organizations":[{"name":"x"}]}'), 'org.json: Cannot read'],
      ])
        await expect(start({ seedFile }), seedFile).rejects.toThrow(
          expect.objectContaining({
            constructor: ConfigError,
            message: expect.stringContaining(problem),
          }),
        );
      await expect(start({ snapshot: dir })).rejects.toThrow(`--snapshot ${dir} cannot be read (EISDIR)`);
      expect(() => loadConfig(['--host', ''])).toThrow("--host / HOST must name an interface, got ''");
      expect(() => loadConfig(['--admin-token', 'caf€'])).toThrow(/ADMIN_TOKEN must be printable ASCII/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a --host no address is found for', async () => {
    await expect(
      startMockServer({ port: 0, logLevel: 'silent', host: 'no-such-host.invalid' }),
    ).rejects.toThrow(/no address found for the name no-such-host.invalid \(--host\)/);
  });

  it('derives the public, storage and share URLs from the bound port unless given', () => {
    const derived = resolveUrls(loadConfig([], {}), 4321);
    expect(derived).toMatchObject({
      publicBaseUrl: 'http://127.0.0.1:4321',
      storageUrl: 'http://127.0.0.1:4321/storage',
      shareBaseUrl: 'http://127.0.0.1:4321',
    });
    const given = resolveUrls(loadConfig(['--public-base-url', 'https://mock.example.com/']), 4321);
    expect(given.shareBaseUrl).toBe('https://mock.example.com');
  });

  it('lists every option with its environment variable in --help', () => {
    const help = helpText();
    for (const option of OPTIONS) {
      expect(help).toContain(option.flag);
      expect(help).toContain(option.env);
    }
  });

  it('refuses an S3 store without a bucket, and an unknown store', async () => {
    await expect(startMockServer({ port: 0, logLevel: 'silent', objectStore: 's3' })).rejects.toThrow(
      /--s3-bucket/,
    );
    await expect(startMockServer({ port: 0, logLevel: 'silent', objectStore: 'ftp' })).rejects.toThrow(
      /--object-store \/ OBJECT_STORE must be one of embedded, s3, got 'ftp'/,
    );
  });

  it("takes the S3 endpoint's timeouts (3 s to connect, 5 s idle unless given), and names a bad one", () => {
    const defaults = loadConfig([], {});
    expect([defaults.s3ConnectTimeoutMs, defaults.s3IdleTimeoutMs]).toEqual([3_000, 5_000]);
    expect(loadConfig(['--s3-connect-timeout-ms', '1000'], { S3_IDLE_TIMEOUT_MS: '20000' })).toMatchObject({
      s3ConnectTimeoutMs: 1000,
      s3IdleTimeoutMs: 20_000,
    });
    expect(() => loadConfig([], { S3_IDLE_TIMEOUT_MS: '0' })).toThrow(
      /--s3-idle-timeout-ms \/ S3_IDLE_TIMEOUT_MS must be at least 100, got '0'/,
    );
    expect(() => loadConfig(['--s3-connect-timeout-ms', '3s'], {})).toThrow(
      /--s3-connect-timeout-ms \/ S3_CONNECT_TIMEOUT_MS must be a non-negative number, got '3s'/,
    );
  });
});

describe('an instance among others', () => {
  it('joins a PostgreSQL given by flag or environment, and none by default', () => {
    expect(loadConfig([], {}).databaseUrl).toBeUndefined();
    expect(loadConfig([], { DATABASE_URL: 'postgres://u:p@db:5432/mock' }).databaseUrl).toBe(
      'postgres://u:p@db:5432/mock',
    );
    expect(
      loadConfig(['--database-url', 'postgresql://db/mock'], { DATABASE_URL: 'postgres://other/x' })
        .databaseUrl,
    ).toBe('postgresql://db/mock');
  });

  it('refuses a database URL of another scheme, naming the option and not the password', () => {
    const refused = () => loadConfig(['--database-url', 'mysql://root:hunter2@db/mock']);
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(
      /--database-url \/ DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/, got a mysql: URL/,
    );
    expect(refused).not.toThrow(/hunter2/);
    expect(() => loadConfig([], { DATABASE_URL: 'db.example.com' })).toThrow(/--database-url.*got no URL/);
  });

  it('runs as api, worker or all (the default), and names a bad role', () => {
    expect(loadConfig([], {}).role).toBe('all');
    expect(loadConfig(['--role', 'worker'], {}).role).toBe('worker');
    expect(loadConfig([], { ROLE: 'api' }).role).toBe('api');
    expect(() => loadConfig(['--role', 'workers'], {})).toThrow(
      /--role \/ ROLE must be one of api, worker, all, got 'workers'/,
    );
  });

  it('takes the job lease and the PostgreSQL pool and timeout, and names a bad value', () => {
    const defaults = loadConfig([], {});
    expect([defaults.jobLeaseMs, defaults.databasePoolSize, defaults.databaseTimeoutMs]).toEqual([
      15_000, 10, 15_000,
    ]);
    expect(loadConfig(['--job-lease-ms', '2000'], { DATABASE_POOL_SIZE: '4' })).toMatchObject({
      jobLeaseMs: 2000,
      databasePoolSize: 4,
    });
    expect(() => loadConfig(['--job-lease-ms', '10'], {})).toThrow(
      /--job-lease-ms \/ JOB_LEASE_MS must be at least 300, got '10'/,
    );
    expect(() => loadConfig(['--database-pool-size', '0'], {})).toThrow(/--database-pool-size/);
    expect(() => loadConfig([], { DATABASE_TIMEOUT_MS: '5' })).toThrow(
      /DATABASE_TIMEOUT_MS must be at least 100/,
    );
  });

  it('waits 30 s for a PostgreSQL that does not answer at start-up unless told otherwise (0: one try)', () => {
    expect(loadConfig([], {}).databaseWaitMs).toBe(30_000);
    expect(loadConfig(['--database-wait-ms', '0'], {}).databaseWaitMs).toBe(0);
    expect(loadConfig([], { DATABASE_WAIT_MS: '120000' }).databaseWaitMs).toBe(120_000);
    expect(() => loadConfig([], { DATABASE_WAIT_MS: '-1' })).toThrow(
      /--database-wait-ms \/ DATABASE_WAIT_MS must be a non-negative number, got '-1'/,
    );
  });

  it('is named hostname-pid unless given a name, and refuses a name unfit for a log line', () => {
    expect(loadConfig([], {}).instanceId).toBe(`${hostname()}-${process.pid}`);
    expect(loadConfig(['--instance-id', 'sandbox-2'], {}).instanceId).toBe('sandbox-2');
    expect(() => loadConfig(['--instance-id', 'a b\nc'], {})).toThrow(/--instance-id \/ INSTANCE_ID must be/);
  });

  it('lists the three settings in --help', () => {
    expect(helpText()).toMatch(/--database-url\s+DATABASE_URL .*\[none: an SQLite file in the data folder\]/);
    expect(helpText()).toMatch(/--role\s+ROLE .*\[all\]/);
    expect(helpText()).toMatch(/--instance-id\s+INSTANCE_ID .*\[HOSTNAME-PID\]/);
  });
});

describe('--help', () => {
  it('shows each default once, at the end of its line, and no machine path', () => {
    const lines = helpText()
      .split('\n')
      .filter((line) => line.trimStart().startsWith('--'));
    expect(lines).toHaveLength(OPTIONS.length);
    for (const line of lines) {
      expect(line.match(/\[[^\]]*\]/g), line).toHaveLength(1);
      expect(line, line).toMatch(/\[[^\]]+\]$/);
      expect(line, line).not.toMatch(/\(default|\(empty|''/);
    }
    expect(helpText()).not.toContain(process.cwd());
  });
});
