export { statsHandlers as handlers } from '../domain/stats';
