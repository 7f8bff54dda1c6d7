import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

/**
 * The data folder's signing key, made by the first mock that needs it. Instances sharing the folder
 * may start at once: the key is created exclusively ('wx'), and one that lost the race reads the
 * winner's, so every instance verifies the part URLs any other signed.
 */
export async function persistentSecret(file: string): Promise<Buffer> {
  const read = async () => {
    const hex = await readFile(file, 'utf8');
    if (hex.length !== 64) throw Object.assign(new Error('half-written key'), { code: 'EAGAIN' });
    return Buffer.from(hex, 'hex');
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EAGAIN' && attempt < 50) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      if (code !== 'ENOENT') throw error;
    }
    const secret = randomBytes(32);
    try {
      await writeFile(file, secret.toString('hex'), { mode: 0o600, flag: 'wx' });
      return secret;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
  }
}
