/**
 * The quantum tool commands of `pks` (CONTRACT §17): `designer`, `codegen`, `validator`, `estimator`,
 * `extractor`. Registered with every program (cheap): each action loads its tool module on demand, so
 * `pks --version` never loads the quantum library.
 */
import type { Command } from 'commander';
import type { CommandHost } from '../host.js';
import { registerCodegen } from './codegen.js';
import { registerDesigner } from './designer.js';
import { registerEstimator } from './estimator.js';
import { registerExtractor } from './extractor.js';
import { registerValidator } from './validator.js';

export function registerQuantumTools(program: Command, host: CommandHost): void {
  for (const register of [registerDesigner, registerCodegen, registerValidator, registerEstimator, registerExtractor]) {
    register(program, host);
  }
}
