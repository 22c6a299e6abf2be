// Rewrites the settings table in README.md from the built settings registry (`npm run build` first).
import { readFileSync, writeFileSync } from 'node:fs';
import { README_TABLE_BEGIN, README_TABLE_END, settingsMarkdownTable } from '../dist/server/config/docs.js';

const file = new URL('../README.md', import.meta.url);
const text = readFileSync(file, 'utf8');
const start = text.indexOf(README_TABLE_BEGIN);
const end = text.indexOf(README_TABLE_END);
if (start < 0 || end < start) throw new Error('README.md lacks the settings-table markers');
writeFileSync(
  file,
  text.slice(0, start + README_TABLE_BEGIN.length) + '\n' + settingsMarkdownTable() + '\n' + text.slice(end),
);
