import { sharedContract, type OpenApiContract } from '../../harness/openapi-contract.js';

/** The CSV columns, as the document lists them for the `columns` parameter. */
export const COLUMNS = csvColumnsOf(sharedContract());

function csvColumnsOf(contract: OpenApiContract): string[] {
  const parameters = (contract.operation('exportMeasurementsCsv').raw.parameters ?? []) as Array<{
    name: string;
    schema: { items: { enum: string[] } };
  }>;
  const columns = parameters.find((p) => p.name === 'columns')?.schema.items.enum;
  if (!columns?.length) throw new Error('the document lists no CSV columns for exportMeasurementsCsv');
  return columns;
}
