/**
 * What `POST /api/graph/query` refuses by the query's plan (CONTRACT §14.1, step 3): the database plans the query as
 * run with `EXPLAIN` (nothing executes) and the plan, not a pattern over the text, says what would run.
 *
 * What Neo4j 5.26 puts in a plan (docs/decisions.md, "Graph query safety (§14.1)"):
 * - every clause becomes an operator, also inside `CALL { }`, `COLLECT { }`, `EXISTS { }` (children of an Apply):
 *   `LoadCSV`, `ProcedureCall`, `Create`, `Merge`, `SetProperty`, `SetLabels`, `Delete`, `DetachDelete`, `Foreach`,
 *   `TransactionForeach`, `ShowTransactions`, `TerminateTransactions`, `CreateIndex`, …;
 * - a `ProcedureCall`'s `Details` argument starts with the procedure's qualified name: `db.labels() :: (…)`;
 * - functions are not operators: they appear in the `Details` text of the operator that evaluates the expression,
 *   printed by the planner in canonical form (`apoc.text.join($autolist_0, $autostring_1) AS x`; literals are
 *   auto-parameterised, so text the user wrote in strings does not show). A user-defined function always has a
 *   namespace (Neo4j refuses one in the root namespace), so a dotted name directly followed by `(` that is not a
 *   built-in function (`SHOW FUNCTIONS … WHERE isBuiltIn`) is a user-defined function;
 * - `summary.queryType` is `r`, `rw`, `w` or `s`: `w` and `rw` write data (`s` also marks DBMS-mode procedures such as
 *   the allowed `dbms.components`, so it decides nothing on its own).
 */
import type { Plan, ProfiledPlan } from 'neo4j-driver';
import { LOAD_CSV_REFUSED } from './query-text.js';

export const ALLOWED_PROCEDURES: ReadonlySet<string> = new Set([
  'db.labels',
  'db.relationshipTypes',
  'db.propertyKeys',
  'db.schema.visualization',
  'db.schema.nodeTypeProperties',
  'db.schema.relTypeProperties',
  'dbms.components',
]);

export const procedureRefused = (name: string): string => `procedure ${name} is not allowed in graph queries`;
export const readOnlyRefused = (what: string): string => `the graph is read-only: ${what} is not allowed`;

type PlanNode = Pick<Plan | ProfiledPlan, 'operatorType' | 'arguments' | 'children'>;

/** Operators that change data, schema or the server (a plan of `queryType` `r` may still hold the last two kinds). */
const WRITE_OPERATOR =
  /^(Create|Merge|LockingMerge|Delete|DetachDelete|Set|Remove|Foreach|TransactionForeach|TransactionApply|Drop|Alter|Grant|Deny|Revoke|Start|Stop|Enable|Rename|Terminate|Show|DoNothingIf)/;
/** Strings, quoted names and parameters in a `Details` text: nothing in them is a call. */
const NOT_CODE = /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`]|``)*`/g;
const DOTTED_CALL = /(?<![\w.$`])([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)\(/g;

/** The clause an operator comes from, where the operator's name does not say it plainly. */
const CLAUSE_OF: readonly [RegExp, string][] = [
  [/^(LockingMerge|Merge)/, 'MERGE'],
  [/^Set/, 'SET'],
  [/^Remove/, 'REMOVE'],
  [/^DetachDelete/, 'DETACH DELETE'],
  [/^Delete/, 'DELETE'],
  [/^Transaction(Foreach|Apply)/, 'CALL { … } IN TRANSACTIONS'],
];

/** `SetLabels@neo4j` → `SetLabels`. */
const operatorName = (node: PlanNode): string => node.operatorType.replace(/@.*$/, '');

/** `DetachDelete` → `DETACH DELETE`, `DoNothingIfExists(INDEX)` → `DO NOTHING IF EXISTS (INDEX)`. */
function operatorWords(operator: string): string {
  return operator.replace(/([a-z])([A-Z(])/g, '$1 $2').toUpperCase();
}

function details(node: PlanNode): string {
  const value = node.arguments['Details'] ?? node.arguments['details'];
  return typeof value === 'string' ? value : '';
}

function* walk(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.children) yield* walk(child);
}

/** Dotted names called as functions in the `Details` of `node` (a procedure call's own name excluded). */
function calledFunctions(node: PlanNode, procedure: string | null): string[] {
  const text = details(node);
  const code = (procedure === null ? text : text.slice(text.indexOf(procedure) + procedure.length)).replace(
    NOT_CODE,
    '_',
  );
  return [...code.matchAll(DOTTED_CALL)].map((m) => m[1]!);
}

/**
 * The refusal of a plan, or null when it may run: `LOAD CSV` first, then procedures and functions outside the
 * allow-list, then anything that writes. `builtInFunctions` holds the lower-cased names of the built-in functions.
 */
export function planRefusal(
  plan: PlanNode,
  queryType: string | undefined,
  builtInFunctions: ReadonlySet<string>,
): string | null {
  const nodes = [...walk(plan)];
  if (nodes.some((n) => operatorName(n) === 'LoadCSV')) return LOAD_CSV_REFUSED;
  for (const node of nodes) {
    let procedure: string | null = null;
    if (operatorName(node) === 'ProcedureCall') {
      procedure = /^\s*([^\s(]+)\s*\(/.exec(details(node))?.[1] ?? '(unnamed)';
      if (!ALLOWED_PROCEDURES.has(procedure)) return procedureRefused(procedure);
    }
    for (const name of calledFunctions(node, procedure)) {
      if (name.toLowerCase().startsWith('apoc.') || !builtInFunctions.has(name.toLowerCase())) {
        return procedureRefused(name);
      }
    }
  }
  const writer = nodes.find((n) => WRITE_OPERATOR.test(operatorName(n)));
  if (writer) {
    const operator = operatorName(writer);
    return readOnlyRefused(CLAUSE_OF.find(([pattern]) => pattern.test(operator))?.[1] ?? operatorWords(operator));
  }
  // `s` is no evidence: the allowed `dbms.components` plans as `s` (a DBMS-mode procedure); schema operators are
  // caught by name above.
  if (queryType === 'w' || queryType === 'rw') return readOnlyRefused('a write');
  return null;
}
