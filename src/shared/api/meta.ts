/**
 * The public meta answers: server information (CONTRACT §8.2) and the scope vocabulary (§7.4). TypeBox only: the
 * server documents its routes with these schemas, and the web reads their bodies through the `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';

/** `GET /api/server/info`. */
export const ServerInfo = Type.Object({
  mode: Type.Literal('server'),
  version: Type.String(),
  engine: Type.Literal('node'),
  node_version: Type.String(),
  paper_access: Type.Boolean(),
  graph_configured: Type.Boolean(),
  oauth_enabled: Type.Boolean(),
  mcp: Type.Boolean({ description: 'the MCP endpoint `/mcp` is served (CONTRACT §20)' }),
});
export type ServerInfo = Static<typeof ServerInfo>;

/** `GET /api/pat/scopes`. */
export const ScopeList = Type.Object({
  scopes: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
  max_expiry_days: Type.Integer(),
});
export type ScopeList = Static<typeof ScopeList>;
