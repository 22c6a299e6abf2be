/** Answers shared by the upload and claim actions (CONTRACT §9). */
import { Type } from '@sinclair/typebox';
import { ErrorBody, Nullable, Sha256 } from '../schemas.js';

/** The `X-Catalog-Sync` header of an upload answer. */
export const catalogSync = {
  headers: {
    'X-Catalog-Sync': { type: 'string', enum: ['deferred'], description: 'the index or graph is updated later' },
  },
};

/** 409 of an upload: different content is stored under the key. */
export const Collision = Type.Object(
  {
    detail: Type.String(),
    existing_sha256: Nullable(Sha256()),
    new_sha256: Sha256(),
    existing_path: Type.String(),
    hint: Type.String(),
    note: Type.Optional(Type.String({ description: 'only when existing_sha256 is null' })),
  },
  { description: 'different content is stored under the key' },
);

export const storeError = { ...ErrorBody, description: 'object store error: <message>' };
export const claimStoreDown = {
  ...ErrorBody,
  description: 'claim store unavailable (graph unreachable); retry shortly',
};
