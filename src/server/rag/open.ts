/** Chunk search is built when paper access is on and both `SVC_RAG_VECTORDB_URL` and `SVC_RAG_EMBED_URL` are set. */
import type { Config } from '../config/types.js';
import type { ChunkSearch } from './service.js';

/** The vector database's client (and the HTTP client under it) is loaded only when chunk search is configured. */
export async function openChunkSearch(config: Config): Promise<ChunkSearch | null> {
  const { rag } = config;
  if (!config.paperAccessEnabled || !rag.vectordbUrl || !rag.embedUrl) return null;
  const [{ ChunkSearch }, { EmbedClient }] = await Promise.all([import('./service.js'), import('./embed-client.js')]);
  return new ChunkSearch(
    rag.vectordbUrl,
    rag.vectordbApiKey,
    rag.collection,
    new EmbedClient(rag.embedUrl, rag.embedToken),
  );
}
