export type { RequestContext } from '../../domain/scope';
