import { describe, expect, it } from 'vitest';
import { parseSandboxCommand, SANDBOX_USAGE, SandboxUsageError } from './cli-options.js';

describe('npm run sandbox -- options', () => {
  it('starts 3 instances on a free port, seeded, with a throwaway database by default', () => {
    expect(parseSandboxCommand([])).toEqual({
      help: false,
      instances: 3,
      port: 0,
      seed: true,
      objectStore: 'embedded',
    });
    expect(parseSandboxCommand(['--object-store', 's3'])).toMatchObject({ objectStore: 's3' });
    expect(parseSandboxCommand(['--object-store', 's3']).s3Bucket).toBeUndefined();
  });

  it('takes every option of the usage text', () => {
    expect(
      parseSandboxCommand([
        '--instances',
        '5',
        '--port',
        '8080',
        '--seed',
        'off',
        '--database-url',
        'postgresql://u:p@db/mock',
        '--data-dir',
        'shared',
        '--object-store',
        's3',
        '--s3-bucket',
        'cells',
        '--s3-endpoint',
        'http://127.0.0.1:7480',
        '--s3-region',
        'eu-west-1',
      ]),
    ).toEqual({
      help: false,
      instances: 5,
      port: 8080,
      seed: false,
      databaseUrl: 'postgresql://u:p@db/mock',
      dataDir: 'shared',
      objectStore: 's3',
      s3Bucket: 'cells',
      s3Endpoint: 'http://127.0.0.1:7480',
      s3Region: 'eu-west-1',
    });
    expect(parseSandboxCommand(['--help']).help).toBe(true);
    for (const flag of [
      '--instances',
      '--port',
      '--seed',
      '--database-url',
      '--data-dir',
      '--object-store',
      '--s3-bucket',
      '--s3-endpoint',
      '--s3-region',
    ])
      expect(SANDBOX_USAGE).toContain(flag);
  });

  it.each([
    [['--instances', '0'], "--instances must be a whole number from 1 to 32, got '0'"],
    [['--object-store', 'gcs'], "--object-store takes embedded or s3, not 'gcs'"],
    [['--s3-bucket', 'cells'], '--s3-bucket needs --object-store s3'],
    [['--object-store', 's3', '--s3-endpoint', 'http://x'], /give the bucket too/],
    [['--instances', 'three'], "--instances must be a whole number from 1 to 32, got 'three'"],
    [['--instances', '2.5'], "--instances must be a whole number from 1 to 32, got '2.5'"],
    [['--instances', '33'], "--instances must be a whole number from 1 to 32, got '33'"],
    [['--port', '70000'], "--port must be a whole number from 0 to 65535, got '70000'"],
    [['--seed', 'yes'], "--seed takes on or off, not 'yes'"],
    [['--database-url', 'mysql://db/x'], '--database-url must start with postgres:// or postgresql://'],
    [['--data-dir', ''], '--data-dir needs a folder'],
  ])('refuses %j, naming the option', (argv, message) => {
    expect(() => parseSandboxCommand(argv)).toThrow(SandboxUsageError);
    expect(() => parseSandboxCommand(argv)).toThrow(message);
  });

  it('refuses an unknown option and a missing value, pointing at --help', () => {
    expect(() => parseSandboxCommand(['--instance', '3'])).toThrow(/--instance.*\(see --help\)/);
    expect(() => parseSandboxCommand(['--instances'])).toThrow(/--instances.*\(see --help\)/);
  });
});
