#!/usr/bin/env node
/**
 * Local stand-ins for the paper-access upstreams (arXiv, OpenAlex, MinerU, Qdrant, embed server) and for the
 * identity provider, on fixed loopback ports, with a few sample papers — so the development server (README
 * command 1) can turn paper access and sign-in on without reaching the internet. They are the test doubles of
 * `test/support/upstreams/`, which speak the wire protocol of CONTRACT §12.
 *
 *   node scripts/dev-upstreams.mjs [--base-port 4310] [--no-papers] [--no-idp] [--exit-with-stdin]
 *
 * The identity provider (base port + 5) is the GitHub double with a sign-in form: any name signs in, each name as
 * its own person under the allow-listed login `dev` (CONTRACT §7.5 has no wildcard). `--no-papers` and `--no-idp`
 * leave out the one or the other (the env file configures real ones).
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
const { startGitHubDouble, nameUser, DEV_LOGIN } = await import('../test/support/upstreams/github.ts');

const { samplePapers } = await import('./lib/sample-papers.mjs');

const DEV_PARSER_TOKEN = 'dev-parser-token';
const withPapers = !args.includes('--no-papers');
const withIdp = !args.includes('--no-idp');

/**
 * Papers arXiv knows: the stored samples (assets/sample-papers, their latest version's PDF is the sample's) and two
 * that are not stored, to try a conversion on. Every other version has a small placeholder PDF.
 */
const SAMPLES = samplePapers();
const PAPERS = [
  ...SAMPLES,
  {
    id: '0811.3171',
    version: 3,
    title: 'Quantum algorithm for solving linear systems of equations',
    authors: ['Aram W. Harrow', 'Avinatan Hassidim', 'Seth Lloyd'],
    abstract:
      'Given a sparse, well-conditioned N by N matrix A and a vector b, a quantum computer prepares a state ' +
      'proportional to the solution x of Ax = b in time polylogarithmic in N, and estimates expectation values of x.',
    published: '2008-11-19',
    doi: '10.1103/physrevlett.103.150502',
  },
  {
    id: '2501.00010',
    version: 2,
    title: 'Sample paper 2501.00010: a development stand-in',
    authors: ['Ada Lovelace', 'Alan Turing'],
    abstract: 'A paper the local arXiv stand-in serves and the development server has not stored: convert it.',
    published: '2025-01-02',
    doi: null,
  },
];

const servers = [];
const settings = {};
if (withPapers) {
  const arxiv = await startArxivDouble({ port: base });
  for (const paper of PAPERS) {
    const pdfs = new Map();
    for (let v = 1; v <= paper.version; v++) {
      pdfs.set(v, v === paper.version && paper.pdf ? paper.pdf : fakePdf(`${paper.id}v${v}`, 64 * 1024));
    }
    arxiv.papers.set(paper.id, { latestVersion: paper.version, pdfs });
    const { title, authors, abstract, published } = paper;
    arxiv.entries.set(paper.id, { title, authors, abstract, published });
  }
  const openalex = await startOpenAlexDouble({ port: base + 1 });
  for (const paper of PAPERS) if (paper.doi) openalex.works.set(paper.doi, arxivWork(paper.doi, paper.id));
  const mineru = await startMineruDouble({ port: base + 2 });
  mineru.tokens.add(DEV_PARSER_TOKEN);
  const qdrant = await startQdrantDouble({ port: base + 3 });
  qdrant.points = PAPERS.map((paper, i) => ({
    id: i + 1,
    score: 0.9 - i * 0.1,
    payload: {
      preprint_id: `${paper.id}v${paper.version}`,
      canonical: paper.id,
      yymm: paper.id.replace(/^.*\//, '').slice(0, 4),
      version: paper.version,
      title: paper.title,
      authors: paper.authors,
      categories: ['quant-ph'],
      section_path: ['1 Introduction'],
      chunk_index: 0,
      chunk_text: paper.abstract,
      md_object_key: null,
      char_start: 0,
      char_end: paper.abstract.length,
      image_refs: [],
    },
  }));
  const embed = await startEmbedDouble({ port: base + 4 });
  servers.push(arxiv, openalex, mineru, qdrant, embed);
  Object.assign(settings, {
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
  });
}
if (withIdp) {
  const idp = await startGitHubDouble(nameUser('Ada Lovelace'), { port: base + 5, signInForm: true });
  servers.push(idp);
  Object.assign(settings, idp.env, {
    IDP_DISPLAY_NAME: 'the development identity provider',
    SVC_ALLOWED_IDP_LOGINS: DEV_LOGIN,
  });
}

// Shell assignments (single-quoted: the display name has spaces); the last line says the stand-ins are up.
const quote = (value) => `'${value.replace(/'/g, `'\\''`)}'`;
for (const [name, value] of Object.entries(settings)) console.log(`${name}=${quote(value)}`);
console.log('PKS_DEV_UPSTREAMS_READY=1');
const papers = withPapers ? `papers: ${PAPERS.map((p) => p.id).join(', ')}` : 'no paper upstreams';
console.error(
  `dev-upstreams: serving on 127.0.0.1:${base}..${base + 5}; ${papers}${withIdp ? '; identity provider' : ''}`,
);

const stop = async () => {
  await Promise.all(servers.map((d) => d.close()));
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
if (args.includes('--exit-with-stdin')) {
  process.stdin.once('end', stop);
  process.stdin.resume();
}
