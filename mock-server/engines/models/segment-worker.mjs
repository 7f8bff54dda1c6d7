// Worker-thread entry: workers do not inherit tsx's loader, so it is registered here before the
// TypeScript task module is imported.
import { register } from 'tsx/esm/api';

register();
const task = await import('./segment-task.ts');
export default task.default;
