import { describe, expect, it } from 'vitest';
import { Cleanup } from './cleanup.js';

describe('Cleanup', () => {
  it('stops in reverse order, once, and goes on past a step that fails', async () => {
    const cleanup = new Cleanup();
    const stopped: string[] = [];
    cleanup.add(async () => stopped.push('database'));
    cleanup.add(() => Promise.reject(new Error('already gone')));
    cleanup.add(async () => stopped.push('balancer'));
    await Promise.all([cleanup.run(), cleanup.run()]);
    expect(stopped).toEqual(['balancer', 'database']);
  });

  it('waits for a start under way and stops what it started', async () => {
    const cleanup = new Cleanup();
    const stopped: string[] = [];
    let finishStart!: (name: string) => void;
    const start = new Promise<string>((resolve) => (finishStart = resolve));
    void cleanup.starting(start, async (name) => stopped.push(name));
    const running = cleanup.run();
    finishStart('instance');
    await running;
    expect(stopped).toEqual(['instance']);
  });
});
