import type { Organization } from '../domain/organizations.js';
import type { OperationCall } from './stages/operation-call.js';

/**
 * What a handler receives: the request of one operation of the document, validated by the stages
 * before it. `org` is undefined only on operations without security (public pages), whose handlers
 * never read it.
 */
export type OperationContext = OperationCall & { org: Organization };

export type OperationHandler = (ctx: OperationContext) => Promise<void> | void;
