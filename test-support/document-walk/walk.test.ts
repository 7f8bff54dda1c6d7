import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateExpression, type Exchange } from './runtime-expression.js';
import { walkDocument } from './walk.js';

/**
 * The walk knows nothing of the cell-segmentation API: here it walks a document of its own, notes
 * with authors, served by a stand-in written for this test. A note's author appears only on its
 * second read (the walk has to poll), one link reads a header, one a request path parameter, one
 * goes by operationRef and one is a link whose value never appears. Two bodies hold an optional
 * reference no link fills: a tag's `owner_id`, which the document gives no value, and a label's
 * `group_id`, whose documented value is null.
 */
const notesDocument = {
  openapi: '3.1.0',
  info: { title: 'Notes', version: '1.0.0' },
  paths: {
    '/notes': {
      post: {
        operationId: 'createNote',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['text', 'colour'],
                properties: { text: { type: 'string' }, colour: { type: 'string', examples: ['teal'] } },
              },
              example: { text: 'buy milk' },
            },
          },
        },
        responses: {
          '201': {
            description: 'Created.',
            links: {
              ReadNote: { operationId: 'getNote', parameters: { note_id: '$response.body#/id' } },
              ReadNoteByHeader: {
                operationRef: '#/paths/~1notes~1{note_id}/get',
                parameters: { 'path.note_id': '$response.header.X-Note-Id' },
              },
            },
          },
        },
      },
    },
    '/notes/{note_id}': {
      parameters: [{ name: 'note_id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getNote',
        responses: {
          '200': {
            description: 'The note.',
            links: {
              ReadAuthor: {
                operationId: 'getAuthor',
                parameters: { author_id: '$response.body#/author/id' },
              },
              DeleteNote: { operationId: 'deleteNote', parameters: { note_id: '$request.path.note_id' } },
            },
          },
        },
      },
      delete: {
        operationId: 'deleteNote',
        responses: {
          '204': {
            description: 'Deleted.',
            links: { Never: { operationId: 'getNote', parameters: { note_id: '$response.body#/id' } } },
          },
        },
      },
    },
    '/tags': {
      post: {
        operationId: 'createTag',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { name: { type: 'string' }, owner_id: { type: 'string' } },
              },
            },
          },
        },
        responses: { '201': { description: 'Created.' } },
      },
    },
    '/labels': {
      post: {
        operationId: 'createLabel',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { group_id: { type: ['string', 'null'], examples: [null] } },
              },
            },
          },
        },
        responses: { '201': { description: 'Created.' } },
      },
    },
    '/authors/{author_id}': {
      get: {
        operationId: 'getAuthor',
        parameters: [{ name: 'author_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The author.' } },
      },
    },
  },
};

const notes = new Map<string, { text: string; colour: string; reads: number }>();
const seen: string[] = [];
const bodies: Record<string, string> = {};
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      bodies[`${req.method} ${req.url}`] = raw;
      const json = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body === undefined ? undefined : JSON.stringify(body));
      };
      const noteId = /^\/notes\/([^/]+)$/.exec(req.url ?? '')?.[1];
      if (req.method === 'POST' && req.url === '/notes') {
        const { text, colour } = JSON.parse(raw) as { text: string; colour: string };
        const id = randomUUID();
        notes.set(id, { text, colour, reads: 0 });
        return json(201, { id, text, colour }, { 'X-Note-Id': id });
      }
      const note = noteId ? notes.get(noteId) : undefined;
      if (req.method === 'GET' && note) {
        note.reads++;
        return json(200, {
          id: noteId,
          text: note.text,
          ...(note.reads > 1 ? { author: { id: 'ada' } } : {}),
        });
      }
      if (req.method === 'DELETE' && note) return json(204);
      if (req.method === 'GET' && req.url === '/authors/ada') return json(200, { id: 'ada' });
      return json(404, { detail: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the document walk', () => {
  it('walks another document: follows body, header and path links, polls until a value appears', async () => {
    const report = await walkDocument({ document: notesDocument, baseUrl, pollIntervalMs: 1 });
    expect(report.links).toEqual({
      'createNote 201 ReadNote': 1,
      'createNote 201 ReadNoteByHeader': 1,
      'getNote 200 ReadAuthor': 2,
      'getNote 200 DeleteNote': 2,
      'deleteNote 204 Never': 0,
    });
    expect([...notes.values()]).toEqual([{ text: 'buy milk', colour: 'teal', reads: expect.any(Number) }]);
    expect(seen).toContain('GET /authors/ada');
    expect(report.exchanges.every((exchange) => exchange.status < 500)).toBe(true);
  });

  it('never invents a reference: sends the value the document gives, or not the request', async () => {
    const report = await walkDocument({ document: notesDocument, baseUrl, pollIntervalMs: 1 });
    expect(report.unfilled).toEqual({ createTag: ['owner_id'] });
    expect(seen).not.toContain('POST /tags');
    expect(JSON.parse(bodies['POST /labels'])).toEqual({ group_id: null });
  });
});

describe('runtime expressions', () => {
  const exchange: Exchange = {
    url: 'http://x/items/7?q=1',
    method: 'post',
    statusCode: 201,
    request: {
      path: { item_id: '7' },
      query: { q: '1' },
      header: new Headers({ 'X-A': 'a' }),
      body: { n: 1 },
    },
    response: { header: new Headers({ Location: '/items/7' }), body: [{ 'a/b': { '~c': 3 } }] },
  };

  it('reads every source the specification defines, JSON pointers escaped as RFC 6901 says', () => {
    expect(evaluateExpression('$url', exchange)).toBe('http://x/items/7?q=1');
    expect(evaluateExpression('$method', exchange)).toBe('POST');
    expect(evaluateExpression('$statusCode', exchange)).toBe(201);
    expect(evaluateExpression('$request.path.item_id', exchange)).toBe('7');
    expect(evaluateExpression('$request.query.q', exchange)).toBe('1');
    expect(evaluateExpression('$request.header.x-a', exchange)).toBe('a');
    expect(evaluateExpression('$request.body#/n', exchange)).toBe(1);
    expect(evaluateExpression('$response.header.location', exchange)).toBe('/items/7');
    expect(evaluateExpression('$response.body#/0/a~1b/~0c', exchange)).toBe(3);
    expect(evaluateExpression('$response.body#/0/missing/deeper', exchange)).toBeUndefined();
    expect(() => evaluateExpression('$response.path.x', exchange)).toThrow(/no path/);
  });
});
