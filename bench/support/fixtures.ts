/** TIFF bytes of the synthetic presets, rendered on demand (fixtures/generated/ may not exist yet). */
import { encodeTiff } from '../../fixtures/generator/tiff-writer.js';
import { renderPreset, type FixturePresetName } from '../../fixtures/generator/synthetic.js';

const cache = new Map<FixturePresetName, Buffer>();

export function presetTiff(name: FixturePresetName): Buffer {
  let bytes = cache.get(name);
  if (!bytes) {
    const { plane } = renderPreset(name);
    bytes = encodeTiff([
      { width: plane.width, height: plane.height, bitsPerSample: plane.bitsPerSample, data: plane.data },
    ]);
    cache.set(name, bytes);
  }
  return bytes;
}
