import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from './precompress.js';
import { katexVersionCheck } from './katex-version.js';

const root = fileURLToPath(new URL('.', import.meta.url));
// rehype-katex parses KaTeX's HTML through this package, whose browser build parses with the DOM: that applies the
// `style` attributes and so needs `style-src 'unsafe-inline'`. Its portable build (parse5, plain JavaScript) gives
// the same tree, and React then sets those styles through the CSSOM, which the Content-Security-Policy allows.
const htmlParser = fileURLToPath(new URL('../node_modules/hast-util-from-html-isomorphic/index.js', import.meta.url));
// `npm run dev:web` proxies the API to a local pksd (scripts/dev-server.sh listens on 4200 by default).
const api = process.env['PKS_API'] ?? 'http://127.0.0.1:4200';

export default defineConfig({
  root,
  base: '/',
  plugins: [react(), precompress(), katexVersionCheck()],
  resolve: { alias: { 'hast-util-from-html-isomorphic': htmlParser } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every asset is a file: the Content-Security-Policy allows no `data:` fonts and KaTeX's fonts must load.
    assetsInlineLimit: 0,
    // KaTeX, CodeMirror and cytoscape are route chunks by design; only the first page's size is budgeted.
    chunkSizeWarningLimit: 1024,
  },
  server: {
    proxy: Object.fromEntries(['/api', '/_', '/swagger', '/install-pksd.sh'].map((p) => [p, api])),
  },
});
