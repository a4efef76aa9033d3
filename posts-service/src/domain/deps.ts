export { transaction, type TxDeps as Deps } from '@community/events';
