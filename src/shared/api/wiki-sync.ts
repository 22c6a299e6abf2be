/**
 * The wiki sync answers (CONTRACT §13.4): the local git status of the wiki checkout and the fast-forward pull.
 * TypeBox only: the server documents its routes with these schemas, and the web reads their bodies through the
 * `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, OpenObject } from './common.js';

/** The wiki directory (`SVC_WIKI_DIR`). */
export const WikiLocation = Type.Object({
  exists: Type.Boolean(),
  /** The wiki directory is outside the process working directory. */
  external: Type.Boolean(),
});
export type WikiLocation = Static<typeof WikiLocation>;

/** `GET /api/wiki/sync/status`. */
export const SyncStatus = Type.Object({
  wiki: WikiLocation,
  git: OpenObject(
    {
      enabled: Type.Boolean(),
      /** `null` when HEAD is detached. */
      branch: Type.Optional(Nullable(Type.String())),
      commit: Type.Optional(Nullable(Type.String())),
      commit_time: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
      /** `null` when the branch has no upstream; ahead/behind are then `null` too. */
      upstream: Type.Optional(Nullable(Type.String())),
      ahead: Type.Optional(Nullable(Type.Integer())),
      behind: Type.Optional(Nullable(Type.Integer())),
      dirty: Type.Optional(Type.Boolean()),
      warnings: Type.Optional(Type.Array(OpenObject({ code: Type.String(), message: Type.String() }))),
    },
    '`{"enabled": false}` when the directory is not a git checkout',
  ),
});
export type SyncStatus = Static<typeof SyncStatus>;

/** `POST /api/wiki/sync/pull` 200 (SPEC "Wiki sync pull response"). */
export const PullResult = Type.Object({
  status: Type.Literal('ok'),
  changed: Type.Boolean(),
  old_commit: Nullable(Type.String()),
  new_commit: Nullable(Type.String()),
  wiki: WikiLocation,
  git: Type.Object({ commit: Nullable(Type.String()), branch: Nullable(Type.String()), dirty: Type.Boolean() }),
});
export type PullResult = Static<typeof PullResult>;
