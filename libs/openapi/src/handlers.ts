import type { Actor } from '@community/contracts';
import type { OperationHandlers, RunnableOperation } from '@community/http-kit';
import type { RESOURCES } from './schemas';

/** A handler for every operation of a table, each returning what its response's contract schema says. */
export type ContractHandlers<
  Ops extends readonly RunnableOperation[],
  SessionCaller = Actor | null,
> = OperationHandlers<Ops, SessionCaller, typeof RESOURCES>;
