/**
 * Parser claims (CONTRACT §5.1): the port and both adapters, from one import path. The port is in
 * `claim-store.ts`, the file adapter in `file-claim-store.ts`, the graph adapter (Cypher) in
 * `../graph/claim-store.ts`.
 */
export * from './claim-store.js';
export { FileClaimStore } from './file-claim-store.js';
export { GraphClaimStore } from '../graph/claim-store.js';
