import type { RegisterCommand } from '../host.js';
import { registerContribParser } from './parser/index.js';
import { registerContribPdf } from './pdf.js';

export const registerContrib: RegisterCommand = (program, host) => {
  const contrib = program.command('contrib').description('contribute PDFs and parser results to the server');
  registerContribPdf(contrib, host);
  registerContribParser(contrib, host);
};
