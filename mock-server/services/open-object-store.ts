import { ConfigError, type MockConfig } from '../config.js';
import type { ObjectStore } from '../domain/object-store.js';
import type { DataLayout } from '../stores/data-layout.js';
import { EmbeddedObjectStore } from '../stores/object-store/embedded-store.js';
import { persistentSecret } from './signing-secret.js';

const S3_SETTING_NAMES = { s3Bucket: '--s3-bucket (S3_BUCKET)', s3Endpoint: '--s3-endpoint (S3_ENDPOINT)' };

/** The object store --object-store names: the embedded one in the data folder, or an S3 bucket. */
export async function openObjectStore(
  config: MockConfig,
  paths: DataLayout,
  persistent: boolean,
  now: () => Date,
): Promise<ObjectStore> {
  if (config.objectStore === 's3') {
    if (!config.s3Bucket) throw new ConfigError('--object-store s3 needs --s3-bucket (S3_BUCKET)');
    // The AWS SDK loads only when an S3 store is asked for: it is most of a cold start's modules.
    const { S3ObjectStore } = await import('../stores/object-store/s3-store.js');
    const store = new S3ObjectStore({
      bucket: config.s3Bucket,
      region: config.s3Region,
      endpoint: config.s3Endpoint || undefined,
      prefix: config.s3Prefix,
      forcePathStyle: config.s3ForcePathStyle === 'true',
      connectTimeoutMs: config.s3ConnectTimeoutMs,
      idleTimeoutMs: config.s3IdleTimeoutMs,
      tmpDir: paths.cache,
    });
    // Refused now, not on every upload to come: a bucket is the operator's to create (docs/sandbox.md).
    const problem = await store.bucketProblem();
    if (problem)
      throw new ConfigError(
        `--s3-bucket ${config.s3Bucket}: the bucket ${problem} at ${config.s3Endpoint || 'AWS'}; ${problem === 'does not exist' ? 'create it (with its CORS rule) or name another' : 'check the credentials, or let them list and use the bucket'}`,
      );
    return store;
  }
  // Settings for a bucket beside the embedded store mean S3 was meant and would be silently unused.
  const s3Settings = (['s3Bucket', 's3Endpoint'] as const).filter((name) => config[name] !== '');
  if (s3Settings.length > 0)
    throw new ConfigError(
      `${s3Settings.map((name) => S3_SETTING_NAMES[name]).join(' and ')} set, but the object store is the embedded one: add --object-store s3 (OBJECT_STORE=s3) to use the bucket, or unset them`,
    );
  return new EmbeddedObjectStore({
    dataDir: paths.store,
    storageUrl: config.storageUrl,
    // A persistent mock keeps its signing key, so part URLs handed out yesterday still work today.
    signingSecret: persistent ? await persistentSecret(paths.signingSecret) : undefined,
    // Part URLs expire by the mock's clock, so advancing it from the control plane expires them.
    clock: now,
  });
}
