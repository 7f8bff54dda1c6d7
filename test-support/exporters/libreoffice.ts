/**
 * LibreOffice Calc as the judge of what a spreadsheet does with `measurements.csv`: it opens the
 * CSV headless with formula evaluation on (the worst case: what Excel does on a double click) and
 * saves what each cell shows, so a test sees `2` where a cell ran `=1+1` and the text where it did not.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';

export const SOFFICE = process.env.SOFFICE ?? 'soffice';

/** null when LibreOffice can run, otherwise why not. */
export function libreofficeMissing(): string | null {
  const probe = spawnSync(SOFFICE, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.error || probe.status !== 0)
    return `${SOFFICE} not found (Debian: apt-get install libreoffice-calc-nogui)`;
  return null;
}

// CSV filter tokens: comma, double quote, UTF-8 (76), from line 1, standard cell format, language
// default, quoted fields as text off, detect special numbers on, (export-only tokens), and token 13,
// "evaluate formulas", on.
const IMPORT = 'CSV:44,34,76,1,,0,false,true,false,false,false,true';
// Export what each cell shows, not its formula (token 9, "save cell contents as shown").
const EXPORT = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false';

let profile: string | undefined;

/** One LibreOffice profile per test process: creating one costs most of a first conversion. */
function profileDir(): string {
  if (profile === undefined) {
    profile = mkdtempSync(path.join(tmpdir(), 'calc-profile-'));
    const made = profile;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return profile;
}

/**
 * The cells of each CSV text as LibreOffice Calc shows them after opening it. One soffice run opens
 * them all: each run costs seconds.
 */
export function cellsAsSpreadsheetShows(csvs: readonly string[]): string[][][] {
  const dir = mkdtempSync(path.join(tmpdir(), 'calc-judge-'));
  try {
    const inputs = csvs.map((csv, i) => {
      const input = path.join(dir, `in${i}.csv`);
      writeFileSync(input, csv);
      return input;
    });
    const out = path.join(dir, 'out');
    const run = spawnSync(
      SOFFICE,
      [
        `-env:UserInstallation=${pathToFileURL(profileDir()).href}`,
        '--headless',
        `--infilter=${IMPORT}`,
        '--convert-to',
        EXPORT,
        '--outdir',
        out,
        ...inputs,
      ],
      { encoding: 'utf8', timeout: 240_000 },
    );
    if (run.error || run.status !== 0)
      throw new Error(`soffice failed (${run.status}): ${run.error?.message ?? run.stderr}`);
    return inputs.map(
      (input) => parseCsv(readFileSync(path.join(out, path.basename(input)), 'utf8')) as string[][],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
