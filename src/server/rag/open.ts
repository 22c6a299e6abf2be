/** Chunk search is built when paper access is on and both `SVC_RAG_VECTORDB_URL` and `SVC_RAG_EMBED_URL` are set. */
import type { Config } from '../config/types.js';
import { EmbedClient } from './embed-client.js';
import { ChunkSearch } from './service.js';

export function openChunkSearch(config: Config): ChunkSearch | null {
  const { rag } = config;
  if (!config.paperAccessEnabled || !rag.vectordbUrl || !rag.embedUrl) return null;
  return new ChunkSearch(
    rag.vectordbUrl,
    rag.vectordbApiKey,
    rag.collection,
    new EmbedClient(rag.embedUrl, rag.embedToken),
  );
}
