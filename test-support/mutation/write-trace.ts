/** `npm run trace`: writes docs/interface-trace.md from the sources and the last mutation record. */
import { writeFileSync } from 'node:fs';
import { readRecord } from '../../contract-tests/trace/mutation-record.js';
import { commandLine } from '../command-line.js';
import { allMutants } from './mutants.js';
import { renderTraceTable, TRACE_TABLE } from './trace-table.js';

// It takes no option: --help says what it writes, anything else is refused before it writes.
commandLine(
  'trace',
  `usage: npm run trace

Writes ${TRACE_TABLE}, the interface trace, from the sources and the last complete mutation run's
record (contract-tests/trace/mutation-record.json; \`npm run mutate\` makes a new one). Takes no option.`,
  { options: {} },
);
writeFileSync(TRACE_TABLE, renderTraceTable(allMutants(), readRecord()));
console.log(`trace: ${TRACE_TABLE} written`);
