// Worker-thread entry: workers do not inherit tsx's loader, so it is registered here before the
// TypeScript task module is imported.
import sharp from 'sharp';
import { register } from 'tsx/esm/api';

// Loading sharp in a thread runs its cache(true): libvips' cache is process-wide, so each worker
// would switch back on the cache that services.ts switched off (up to 100 operations, 50 MB).
sharp.cache(false);

register();
const task = await import('./segment-task.ts');
export default task.default;
