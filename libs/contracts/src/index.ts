export * from './errors';
export * from './common';
export * from './access';
export * from './posts';
export * from './comments';
export * from './categories';
export * from './events';
export * from './users';
