/** The upstreams of a pksd with chunk search (CONTRACT §11.7), shared by the REST and MCP tests. */
import { startEmbedDouble, type EmbedDouble } from '../../support/upstreams/embed.js';
import { startQdrantDouble, type QdrantDouble } from '../../support/upstreams/qdrant.js';
import { accessEnv, startDoubles, type Doubles } from '../access/support/harness.js';

export interface RagDoubles {
  /** The paper-access doubles (chunk search needs paper access on). */
  d: Doubles;
  qdrant: QdrantDouble;
  embed: EmbedDouble;
  /** pksd's environment for paper access and chunk search against these doubles. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startRagDoubles(): Promise<RagDoubles> {
  const [d, qdrant, embed] = await Promise.all([startDoubles(), startQdrantDouble(), startEmbedDouble()]);
  return {
    d,
    qdrant,
    embed,
    env: {
      ...accessEnv(d),
      SVC_RAG_VECTORDB_URL: qdrant.baseUrl,
      SVC_RAG_VECTORDB_API_KEY: 'qdrant-key',
      SVC_RAG_EMBED_URL: embed.baseUrl,
      SVC_RAG_EMBED_TOKEN: 'embed-token',
    },
    close: async () => {
      await Promise.all([d.close(), qdrant.close(), embed.close()]);
    },
  };
}
