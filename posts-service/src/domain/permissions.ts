export { assertAdmin, assertCanChange, assertModerator, assertScope } from '@community/contracts';
