/* global process, Buffer */
// The floor of a read that asks PostgreSQL once: a bare node:http server (no router, no validation,
// no auth, no logging) that answers every GET with one prepared statement's row, through node-pg's
// pool as the mock's shared engine uses it. Behind the same nginx as the sandbox, its CPU per read
// is what any server pays that asks the shared database once per request, before doing any work of
// its own: the sandbox-cost section sets the sandbox's reads beside it.
import { createServer } from 'node:http';
import pg from 'pg';

const argument = (name) => process.argv[process.argv.indexOf(name) + 1];
const pool = new pg.Pool({ connectionString: argument('--database-url'), max: 10 });
const read = { name: 'floor_read', text: 'SELECT $1::text AS path, now() AS at' };

createServer(async (req, res) => {
  try {
    const { rows } = await pool.query({ ...read, values: [req.url ?? ''] });
    const body = Buffer.from(JSON.stringify(rows[0]));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  } catch {
    res.writeHead(503).end();
  }
}).listen(Number(argument('--port')), '127.0.0.1');
process.on('SIGTERM', () => pool.end().finally(() => process.exit(0)));
