/**
 * JSON encoding of graph values (CONTRACT §14): nodes, relationships and paths as objects with elementIds,
 * integers as numbers when safe and decimal strings otherwise, temporal values as ISO 8601 strings, points as
 * `{srid, x, y, z?}`, byte arrays as base64, lists and maps recursively.
 */
import type { Integer, Node, Path, Point, Relationship } from 'neo4j-driver';
import { neo4jDriver, type Neo4jDriver } from './neo4j-lib.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

declare const parsesTo: unique symbol;
/** JSON text that `JSON.parse`s to a `T`: already encoded, to be sent as it is. */
export type JsonText<T> = string & { readonly [parsesTo]: T };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function encodeValue(value: unknown): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON has no NaN or infinities: they travel as the strings "NaN", "Infinity", "-Infinity".
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value.toString();
    case 'object':
      return value === null ? null : encodeObject(value);
    default:
      return null;
  }
}

export function encodeMap(map: Readonly<Record<string, unknown>>): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const key in map) setEntry(out, key, encodeValue(map[key]));
  return out;
}

/**
 * `out[key] = value`, except that a key `__proto__` (a property, map key or column may be called that) becomes an
 * entry, as the driver's maps keep it, instead of replacing the object's prototype and vanishing from the JSON.
 */
export function setEntry(out: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function encodeNode(node: Node): JsonValue {
  return { id: node.elementId, labels: node.labels, properties: encodeMap(node.properties) };
}

function encodeRelationship(rel: Relationship): JsonValue {
  return {
    id: rel.elementId,
    type: rel.type,
    start_node: rel.startNodeElementId,
    end_node: rel.endNodeElementId,
    properties: encodeMap(rel.properties),
  };
}

function encodePath(path: Path): JsonValue {
  const nodes: JsonValue[] = [encodeNode(path.start)];
  const relationships: JsonValue[] = [];
  for (const segment of path.segments) {
    relationships.push(encodeRelationship(segment.relationship));
    nodes.push(encodeNode(segment.end));
  }
  return { nodes, relationships };
}

function encodePoint(point: Point): JsonValue {
  const out: { [key: string]: JsonValue } = {
    srid: encodeValue(point.srid),
    x: encodeValue(point.x),
    y: encodeValue(point.y),
  };
  if (point.z !== undefined) out['z'] = encodeValue(point.z);
  return out;
}

const isTemporal = (v: object, neo4j: Neo4jDriver): boolean =>
  neo4j.isDateTime(v) ||
  neo4j.isDate(v) ||
  neo4j.isLocalDateTime(v) ||
  neo4j.isTime(v) ||
  neo4j.isLocalTime(v) ||
  neo4j.isDuration(v);

function encodeObject(value: object): JsonValue {
  if (Array.isArray(value)) return value.map(encodeValue);
  const neo4j = neo4jDriver();
  if (neo4j.isInt(value)) {
    // `toNumber()` is the nearest double, safe exactly when the integer is (and far cheaper than `inSafeRange()`).
    const int = value as Integer;
    const number = int.toNumber();
    return Number.isSafeInteger(number) ? number : int.toString();
  }
  if (neo4j.isNode(value)) return encodeNode(value);
  if (neo4j.isRelationship(value)) return encodeRelationship(value);
  if (neo4j.isPath(value)) return encodePath(value);
  if (neo4j.isPoint(value)) return encodePoint(value);
  if (isTemporal(value, neo4j)) return String(value); // the driver's toString() is ISO 8601
  if (ArrayBuffer.isView(value))
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  return encodeMap(value as Record<string, unknown>);
}
