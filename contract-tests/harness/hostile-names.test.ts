import { expect, it } from 'vitest';
import { hostileName } from './hostile-names.js';

it('keeps the run prefix in whatever basename a target stores of the hostile name', () => {
  const name = hostileName('contract-20261129aaaa-');
  for (const kept of [name, name.split('/').at(-1)!, name.split(/[\\/]/).at(-1)!])
    expect(kept).toContain('contract-20261129aaaa-');
});
