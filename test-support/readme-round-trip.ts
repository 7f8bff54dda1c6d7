import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The bash block between the README's round-trip markers, as a newcomer pastes it. */
export async function readmeRoundTrip(root: string): Promise<string> {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('<!-- round-trip:start -->');
  const end = readme.indexOf('<!-- round-trip:end -->');
  if (start < 0 || end < start) throw new Error('README.md has no round-trip markers');
  const blocks = [...readme.slice(start, end).matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  if (blocks.length !== 1)
    throw new Error(`README.md: ${blocks.length} bash blocks between the round-trip markers, not one`);
  return blocks[0];
}
