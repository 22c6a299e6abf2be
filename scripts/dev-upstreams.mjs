#!/usr/bin/env node
/**
 * Local stand-ins for the paper-access upstreams (arXiv, OpenAlex, MinerU, Qdrant, embed server), on fixed
 * loopback ports, with a few sample papers — so the development server (README command 1) can turn paper access
 * on without reaching the internet. They are the test doubles of `test/support/upstreams/`, which speak the wire
 * protocol of CONTRACT §12.
 *
 *   node scripts/dev-upstreams.mjs [--base-port 4310] [--exit-with-stdin]
 *
 * Prints the settings that point pksd at them, then serves until interrupted (Ctrl-C) or, with
 * `--exit-with-stdin`, until its standard input closes (so it ends with the process holding that pipe).
 */
import { register } from 'node:module';

register('../test/support/upstreams/ts-loader.mjs', import.meta.url);

const args = process.argv.slice(2);
const portArg = args.indexOf('--base-port');
const base = portArg >= 0 ? Number(args[portArg + 1]) : 4310;
if (!Number.isInteger(base) || base < 1024 || base > 65530) {
  console.error('dev-upstreams: --base-port must be an integer between 1024 and 65530');
  process.exit(2);
}

const { startArxivDouble, fakePdf } = await import('../test/support/upstreams/arxiv.ts');
const { startOpenAlexDouble, arxivWork } = await import('../test/support/upstreams/openalex.ts');
const { startMineruDouble } = await import('../test/support/upstreams/mineru.ts');
const { startQdrantDouble } = await import('../test/support/upstreams/qdrant.ts');
const { startEmbedDouble } = await import('../test/support/upstreams/embed.ts');

const DEV_PARSER_TOKEN = 'dev-parser-token';

/** Sample papers: versionless id → latest version (every version has a small PDF). */
const PAPERS = { 'quant-ph/9508027': 2, 'quant-ph/9605043': 3, '2501.00010': 2, '0811.3171': 3, 1411.4028: 1 };
const DOIS = { '10.1137/s0097539795293172': 'quant-ph/9508027', '10.1103/physrevlett.103.150502': '0811.3171' };

const arxiv = await startArxivDouble({ port: base });
for (const [id, latest] of Object.entries(PAPERS)) {
  const pdfs = new Map();
  for (let v = 1; v <= latest; v++) pdfs.set(v, fakePdf(`${id}v${v}`, 64 * 1024));
  arxiv.papers.set(id, { latestVersion: latest, pdfs });
  arxiv.entries.set(id, {
    title: `Sample paper ${id}`,
    authors: ['Ada Lovelace', 'Alan Turing'],
    abstract: `The abstract of the sample paper ${id}, served by the local arXiv API stand-in.`,
    published: '2001-02-03',
  });
}
const openalex = await startOpenAlexDouble({ port: base + 1 });
for (const [doi, id] of Object.entries(DOIS)) openalex.works.set(doi, arxivWork(doi, id));
const mineru = await startMineruDouble({ port: base + 2 });
mineru.tokens.add(DEV_PARSER_TOKEN);
const qdrant = await startQdrantDouble({ port: base + 3 });
qdrant.points = Object.keys(PAPERS).map((id, i) => ({
  id: i + 1,
  score: 0.9 - i * 0.1,
  payload: {
    preprint_id: `${id}v${PAPERS[id]}`,
    canonical: id,
    yymm: id.replace(/^.*\//, '').slice(0, 4),
    version: PAPERS[id],
    title: `Sample paper ${id}`,
    authors: ['A. Author'],
    categories: ['quant-ph'],
    section_path: ['1 Introduction'],
    chunk_index: 0,
    chunk_text: `The opening paragraph of ${id}.`,
    md_object_key: null,
    char_start: 0,
    char_end: 40,
    image_refs: [],
  },
}));
const embed = await startEmbedDouble({ port: base + 4 });

const settings = {
  SVC_PAPER_ACCESS_ENABLED: 'true',
  SVC_PREPRINT_BASE_URL: arxiv.baseUrl,
  SVC_PREPRINT_API_URL: `${arxiv.baseUrl}/api/query`,
  SVC_SCHOLARLY_BASE_URL: openalex.baseUrl,
  SVC_SCHOLARLY_MAILTO: 'dev@localhost',
  PARSER_API_BASE_URL: mineru.baseUrl,
  PARSER_API_TOKENS: DEV_PARSER_TOKEN,
  PARSER_POLL_INTERVAL: '0.5',
  SVC_RAG_VECTORDB_URL: qdrant.baseUrl,
  SVC_RAG_EMBED_URL: embed.baseUrl,
};
for (const [name, value] of Object.entries(settings)) console.log(`${name}=${value}`);
console.error(`dev-upstreams: serving on 127.0.0.1:${base}..${base + 4}; papers: ${Object.keys(PAPERS).join(', ')}`);

const stop = async () => {
  await Promise.all([arxiv, openalex, mineru, qdrant, embed].map((d) => d.close()));
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
if (args.includes('--exit-with-stdin')) {
  process.stdin.once('end', stop);
  process.stdin.resume();
}
