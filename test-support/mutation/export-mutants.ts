import JSZip from 'jszip';
import sharp from 'sharp';
import { sharedContract } from '../../contract-tests/harness/openapi-contract.js';
import { editCsv } from '../sabotage-edits.js';
import type { Answer } from '../sabotage-catalogue.js';
import { answerCase, documentedResponses, type DocumentedResponse } from './document-mutants.js';
import type { AnswerEdit, Mutant } from './mutant.js';

/**
 * Mutants of the exports' answers that no JSON schema describes: their headers (content type,
 * disposition) and their contents (a CSV cell of each column, a CSV row, a ZIP entry, a PNG pixel
 * column). A GeoJSON export is JSON: its features and properties are document-mutants.ts's.
 */

const CSV_COLUMNS_PARAMETER = 'columns';

/** The CSV's columns, as the document lists them (the enum of the `columns` query parameter). */
function csvColumns(operation: string): string[] {
  const op = sharedContract().operation(operation);
  const parameter = ((op.raw.parameters as Array<Record<string, unknown>>) ?? []).find(
    (p) => p.name === CSV_COLUMNS_PARAMETER,
  );
  const items = (parameter?.schema as { items?: { enum?: string[] } } | undefined)?.items;
  return items?.enum ?? [];
}

/** Another value of a CSV cell: a number one more, a text with a letter more; an empty cell stays. */
const otherCell = (cell: string): string =>
  cell === '' ? cell : Number.isFinite(Number(cell)) ? String(Number(cell) + 1) : `${cell}x`;

async function dropLastZipEntry(bytes: Buffer): Promise<Buffer | undefined> {
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.keys(zip.files);
  if (names.length === 0) return undefined;
  zip.remove(names[names.length - 1]);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** The PNG with its middle pixel column inverted: a column of outline drawn where there is none. */
async function invertMiddleColumn(bytes: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const x = Math.floor(info.width / 2);
  for (let y = 0; y < info.height; y++)
    for (let c = 0; c < info.channels; c++) {
      const i = (y * info.width + x) * info.channels + c;
      if (c < 3) data[i] = 255 - data[i];
    }
  return sharp(data, { raw: info }).png().toBuffer();
}

const replaceBody =
  (make: (body: Buffer) => Buffer | undefined | Promise<Buffer | undefined>): AnswerEdit =>
  async (answer: Answer) => {
    const next = await make(answer.body);
    if (!next || next.equals(answer.body)) return false;
    answer.body = next;
    return true;
  };

function mutant(response: DocumentedResponse, what: string, summary: string, edit: AnswerEdit): Mutant {
  const { operation, status } = response;
  return {
    id: `${operation}.${status}.${what}`,
    operation,
    summary,
    reaches: { operation, status },
    build: (log) => answerCase(operation, status, edit, log),
  };
}

function headerMutants(response: DocumentedResponse): Mutant[] {
  const mutants: Mutant[] = [];
  // A response without content (a 304) has no content type to get wrong.
  if (response.media.length && (response.media.some((m) => !m.includes('json')) || response.headers.length)) {
    mutants.push(
      mutant(
        response,
        'header.content-type:octet-stream',
        'content type application/octet-stream',
        (answer) => {
          if (answer.headers['content-type'] === 'application/octet-stream') return false;
          answer.headers['content-type'] = 'application/octet-stream';
          return true;
        },
      ),
    );
  }
  for (const header of response.headers.map((h) => h.toLowerCase())) {
    mutants.push(
      mutant(response, `header.${header}:drop`, `${header} left out`, (answer) => {
        if (!(header in answer.headers)) return false;
        delete answer.headers[header];
        return true;
      }),
    );
    if (header === 'content-disposition') {
      mutants.push(
        mutant(response, `header.${header}:inline`, 'inline instead of attachment', (answer) => {
          const value = answer.headers[header];
          if (!value?.startsWith('attachment')) return false;
          answer.headers[header] = value.replace(/^attachment/, 'inline');
          return true;
        }),
        mutant(response, `header.${header}:filename`, 'another file name', (answer) => {
          const value = answer.headers[header];
          if (!value?.includes('filename="')) return false;
          answer.headers[header] = value.replace('filename="', 'filename="x');
          return true;
        }),
      );
    }
  }
  return mutants;
}

function contentMutants(response: DocumentedResponse): Mutant[] {
  if (response.status !== 200) return [];
  if (response.media.includes('text/csv'))
    return [
      ...csvColumns(response.operation).map((column) =>
        mutant(
          response,
          `csv.${column}:change`,
          `every ${column} cell changed`,
          replaceBody((body) => editCsv(body, (row) => (row[column] = otherCell(row[column] ?? '')))),
        ),
      ),
      mutant(
        response,
        'csv.row:drop',
        'the last row left out',
        replaceBody((body) => {
          // each line with its own terminator, so the CSV keeps its CRLF
          const lines = body.toString('utf8').split(/(?<=\n)/);
          return lines.length > 2 ? Buffer.from(lines.slice(0, -1).join('')) : undefined;
        }),
      ),
    ];
  if (response.media.includes('application/zip'))
    return [mutant(response, 'zip.entry:drop', 'the last ZIP entry left out', replaceBody(dropLastZipEntry))];
  if (response.media.includes('image/png'))
    return [
      mutant(
        response,
        'png.column:invert',
        'the middle pixel column inverted',
        replaceBody(invertMiddleColumn),
      ),
    ];
  return [];
}

/** Every mutant of the exports' headers and binary contents, in document order. */
export function exportMutants(): Mutant[] {
  return documentedResponses().flatMap((response) => [
    ...headerMutants(response),
    ...contentMutants(response),
  ]);
}
