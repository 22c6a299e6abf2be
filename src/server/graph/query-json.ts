/**
 * The JSON text of a query's success answer, written while the records stream in: each record is encoded and
 * serialised as it arrives (V8's `JSON.stringify` of the small encoded record), so when the last one is in only the
 * few fields around the records remain. Serialising the whole answer at the end instead puts ~1 ms per 1,000 nodes
 * on the response's critical path; a hand-written JSON writer measured no faster than the native serialiser.
 */
import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { GraphQueryResult } from '../../shared/api/graph.js';
import { encodeValue, setEntry, type JsonText, type JsonValue } from './values.js';

/** One record as `{column: value}` in the JSON encoding of graph values (what `recordJsonOf` writes as text). */
export function encodeRecord(record: Neo4jRecord): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  const keys = record.keys;
  for (let i = 0; i < keys.length; i++) setEntry(out, keys[i] as string, encodeValue(record.get(i)));
  return out;
}

/** The JSON texts of the values of `record`, in column order. */
export function valueJsons(record: Neo4jRecord): string[] {
  const texts: string[] = [];
  for (let i = 0; i < record.keys.length; i++) texts.push(JSON.stringify(encodeValue(record.get(i))));
  return texts;
}

/**
 * A record's JSON text from its columns' keys and its values' JSON texts (`valueJsons`), columns in order: the text
 * of `encodeRecord`, written from values whose sizes the caller has checked one by one.
 */
export function recordJsonOf(keys: readonly string[], values: readonly string[]): string {
  let text = '{';
  for (let i = 0; i < keys.length; i++) text += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${values[i]}`;
  return `${text}}`;
}

/**
 * `JSON.stringify({query, columns, records, truncated})`, given `records` as the comma-separated JSON texts of the
 * records (what `recordJsonOf` wrote for each).
 */
export function queryResultJson(
  query: string,
  columns: readonly string[],
  records: string,
  truncated: boolean,
): JsonText<GraphQueryResult> {
  const text = `{"query":${JSON.stringify(query)},"columns":${JSON.stringify(columns)},"records":[${records}],"truncated":${truncated}}`;
  return text as JsonText<GraphQueryResult>;
}
