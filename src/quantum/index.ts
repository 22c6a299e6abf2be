/**
 * The quantum tools library (CONTRACT §17): IR, exact simulation, designer, optimiser, codegen, validator,
 * estimator and extractor. No HTTP server code and no command-line parsing; `src/cli/quantum` wraps it.
 */
export type { Circuit, Gate, GateParams, IRMetadata, QuantumIR } from './ir/types.js';
export { GATE_SPECS, GATE_ALIASES, canonicalGateName, gateSpec, type GateSpec } from './ir/gates.js';
export { IR_VERSION, loadQuantumIR, parseQuantumIR, type LoadOptions } from './ir/load.js';
export { gate, measure, shiftGate } from './ir/build.js';
export * from './ir/metrics.js';
export { oneQubitMatrix, multiply, type Mat2 } from './sim/matrices.js';
export {
  MAX_STATEVECTOR_QUBITS,
  applyGate,
  checkKnownGates,
  simulateStatevector,
  zeroState,
} from './sim/statevector.js';
export { MAX_UNITARY_QUBITS, circuitUnitary, type Unitary } from './sim/unitary.js';
export { mulberry32, gaussian, randomState, type Rng } from './sim/random.js';
export {
  bitstring,
  probabilities,
  sampleCircuit,
  sampleState,
  totalVariationDistance,
  type Counts,
} from './sim/sampling.js';
export { compareUpToPhase, innerProduct, normalizeAngle, type PhaseComparison } from './equivalence.js';
export { addAngles, reduceAngle, reduceAngle4Pi } from './angles.js';
export { PRIMITIVES, findPrimitive, qftGates, iqftGates, type Primitive } from './designer/primitives.js';
export {
  InvalidParameterError,
  markedBitstring,
  parseAssignment,
  parseParamValue,
  validateParams,
  type ParamMap,
  type ParamValue,
} from './designer/params.js';
export { inferPrimitives } from './designer/infer.js';
export { loadAlgorithmInput, primitiveIdFromPageId, type AlgorithmInput } from './designer/input.js';
export { designCircuit, type DesignOptions, type DesignResult } from './designer/design.js';
export { drawCircuit } from './designer/draw.js';
export { listPrimitivesText, summaryText, visualizationText } from './designer/report.js';
export {
  optimizeCircuit,
  type OptimizationLevel,
  type OptimizationResult,
  type OptimizationStats,
} from './optimizer/optimize.js';
export { zyzAngles } from './optimizer/zyz.js';
export { lowerGate, lowerGates, multiControlledPhase } from './optimizer/lower.js';
export { basisCost, optimizeInBasis, type BasisCost } from './optimizer/basis.js';
export { cancelCommuting } from './optimizer/commute.js';
export { BACKENDS, defaultDescription, generateCode, type Backend, type CodegenOptions } from './codegen/generate.js';
export { formatAngle } from './codegen/forms.js';
export { detectBackend, parseProgram, type ParsedProgram } from './codegen/parse.js';
export {
  METHODS,
  checkEquivalence,
  type EquivalenceResult,
  type Method,
  type MethodOptions,
} from './validator/methods.js';
export { referenceCircuit } from './validator/references.js';
export { parseTestSuite, runTestSuite, type TestSuite, type TestSuiteResult } from './validator/test-suite.js';
export { validateCircuit, type ValidateOptions, type ValidationReport } from './validator/validate.js';
export { REPORT_FORMATS, renderReport, type ReportFormat } from './validator/render.js';
export {
  demoCircuit,
  estimateResources,
  parseHardwareParams,
  type EstimateReport,
  type HardwareParams,
} from './estimator/estimate.js';
export { renderEstimateJson, renderEstimateMarkdown } from './estimator/render.js';
export {
  DEFAULT_BASE_URLS,
  DEFAULT_MODELS,
  LLM_PROVIDERS,
  createLlmClient,
  type LlmClient,
  type LlmProvider,
  type TokenUsage,
} from './extractor/llm.js';
export { extractAlgorithm, algorithmId, type AlgorithmIR, type ExtractionResult } from './extractor/extract.js';
export { markdownPath, paperMarkdown, type MarkdownFetcher } from './extractor/source.js';
