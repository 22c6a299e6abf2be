import { resolve } from 'node:path';

/**
 * The project-local Python interpreter (`.cache/venv`, made by `scripts/install-test-deps.sh`) that has moto,
 * Schemathesis, qiskit and qiskit-aer.
 */
export const VENV_PYTHON = resolve(import.meta.dirname, '../../.cache/venv/bin/python');
