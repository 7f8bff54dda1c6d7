/** `npm run trace`: writes docs/interface-trace.md from the sources and the last mutation record. */
import { writeFileSync } from 'node:fs';
import { readRecord } from '../../contract-tests/trace/mutation-record.js';
import { allMutants } from './mutants.js';
import { renderTraceTable, TRACE_TABLE } from './trace-table.js';

writeFileSync(TRACE_TABLE, renderTraceTable(allMutants(), readRecord()));
console.log(`trace: ${TRACE_TABLE} written`);
