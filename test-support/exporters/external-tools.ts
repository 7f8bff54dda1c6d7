/**
 * Test-only access to the real tools that judge the exports: ImageJ (Java + ij.jar) and shapely
 * (Debian's /usr/bin/python3). Each probe returns a reason string when the tool is missing, so tests
 * can skip with a clear message instead of passing silently.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const IJ_JAR = process.env.IJ_JAR ?? '/usr/share/java/ij.jar';
export const SHAPELY_PYTHON = process.env.SHAPELY_PYTHON ?? '/usr/bin/python3';
const DECODER_SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'interop', 'DecodeRois.java');

/** null when java and ij.jar are usable, otherwise why not. */
export function imagejMissing(): string | null {
  if (!existsSync(IJ_JAR)) return `ImageJ jar not found at ${IJ_JAR} (Debian: apt-get install libij-java)`;
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    return 'java not found on PATH (Debian: apt-get install default-jre-headless)';
  return null;
}

export interface DecodedRoi {
  entry: string;
  name: string | null;
  header2Name: string | null;
  version: number;
  type: number;
  typeName: string;
  bounds: [number, number, number, number];
  x: number[];
  y: number[];
  pixels: number;
  px: number[];
  py: number[];
  length: number;
  reencodeEqual: boolean;
}

let compiledDecoder: string | undefined;

/** Compiles DecodeRois.java once per test process (javac is faster than source launch per call). */
function decoderClasspath(): string {
  if (compiledDecoder === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'decode-rois-'));
    const javac = spawnSync('javac', ['-nowarn', '-cp', IJ_JAR, '-d', dir, DECODER_SOURCE], {
      encoding: 'utf8',
    });
    if (javac.error || javac.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      compiledDecoder = '';
    } else {
      compiledDecoder = dir;
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
  }
  return compiledDecoder;
}

/** Decodes a zip of .roi files with ImageJ's own ZipInputStream + RoiDecoder (interop/DecodeRois.java). */
export function decodeZipWithImageJ(zip: Uint8Array): DecodedRoi[] {
  const dir = mkdtempSync(join(tmpdir(), 'rois-zip-'));
  try {
    const path = join(dir, 'rois.zip');
    writeFileSync(path, zip);
    const classes = decoderClasspath();
    const args = classes
      ? ['-Djava.awt.headless=true', '-cp', `${IJ_JAR}${delimiter}${classes}`, 'DecodeRois', path]
      : ['-Djava.awt.headless=true', '-cp', IJ_JAR, DECODER_SOURCE, path];
    const stdout = execFileSync('java', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    return stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as DecodedRoi);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** null when SHAPELY_PYTHON can import shapely, otherwise why not. */
export function shapelyMissing(): string | null {
  const probe = spawnSync(
    SHAPELY_PYTHON,
    ['-c', 'import shapely, sys; sys.stdout.write(shapely.__version__)'],
    {
      encoding: 'utf8',
    },
  );
  if (probe.error) return `${SHAPELY_PYTHON} not found`;
  if (probe.status !== 0) return `shapely is not importable by ${SHAPELY_PYTHON}: ${probe.stderr.trim()}`;
  return null;
}

export interface ShapelyVerdict {
  id: string;
  valid: boolean;
  reason: string;
  area: number;
  exteriorCcw: boolean;
}

/** shapely's opinion of every feature: is_valid (with explain_validity), area, and orientation. */
export function checkWithShapely(geojsonText: string): ShapelyVerdict[] {
  const script = `
import json, sys
from shapely.geometry import shape
from shapely.validation import explain_validity
doc = json.load(sys.stdin)
out = []
for f in doc["features"]:
    g = shape(f["geometry"])
    out.append({"id": f["id"], "valid": bool(g.is_valid), "reason": explain_validity(g),
                "area": g.area, "exteriorCcw": bool(g.exterior.is_ccw)})
json.dump(out, sys.stdout)
`;
  const stdout = execFileSync(SHAPELY_PYTHON, ['-c', script], {
    input: geojsonText,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as ShapelyVerdict[];
}
