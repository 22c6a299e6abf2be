/**
 * A cap on the size of one Bolt message on the connections of user graph queries (CONTRACT §14.1, step 5).
 *
 * The Neo4j JavaScript driver assembles a whole message from its chunks and decodes it before any caller sees it:
 * one record holding `range(1, 3000000)` is a 15 MB message that decodes to ~240 MiB of `Integer` objects. No public
 * option bounds that, so the driver's `Dechunker` (the per-connection chunk assembler, an internal module of
 * `neo4j-driver-bolt-connection` 6.x) is wrapped: on a connection opened inside `withBoltMessageCap(n, …)` a message
 * whose chunks pass `n` bytes is dropped as it arrives — nothing of it is kept — and the connection fails with
 * `BoltMessageTooLargeError`. The driver then marks the connection broken, the pool destroys it on release, and
 * Neo4j ends the transaction when the socket closes. Connections opened elsewhere (claims, sync) are not capped.
 *
 * The connection's cap is read once, from the async context of its first chunk header (the socket's `data` events
 * run in the context the socket was opened in). If the driver's internals change shape, the wrap is not installed
 * and `boltMessageCapInstalled()` is false (a test asserts it, so an upgrade cannot silently drop the cap). It is
 * installed by the first capped run, before that run opens a connection: a server without a graph does not load
 * the driver for it (docs/decisions.md "H13-FLOOR").
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';

/** The failure of a message over the cap; the query that read it answers by the byte-cap rules. */
export class BoltMessageTooLargeError extends Error {
  readonly code = 'Pks.BoltMessageTooLarge';
  constructor(readonly maxBytes: number) {
    super(`a Bolt message exceeded ${maxBytes} bytes`);
  }
}

interface ChannelBuffer {
  remaining(): number;
  readSlice(length: number): unknown;
}

type State = (this: CappedDechunker, buf: ChannelBuffer) => State;

interface CappedDechunker {
  _currentMessage: unknown[];
  _onHeader(header: number): State;
  onmessage(message: unknown): void;
  /** This connection's cap (Infinity: none), fixed at its first chunk header. */
  pksCap?: number;
  /** Bytes of the message being assembled. */
  pksMessageBytes?: number;
}

const capOfNewConnections = new AsyncLocalStorage<number>();

/** Runs `work` so that the Bolt connections it opens cap each message at `maxBytes`. */
export function withBoltMessageCap<T>(maxBytes: number, work: () => T): T {
  boltMessageCapInstalled();
  return capOfNewConnections.run(maxBytes, work);
}

/** Drops every byte: the connection is broken and waits to be closed. */
const drain: State = function (buf) {
  buf.readSlice(buf.remaining());
  return drain;
};

/** A message whose first read throws `error`: the driver's message handler turns that into a connection failure. */
function poisoned(error: Error): unknown {
  return new Proxy(
    {},
    {
      get: () => () => {
        throw error;
      },
    },
  );
}

function install(): boolean {
  const require = createRequire(import.meta.url);
  let proto: Partial<CappedDechunker> | undefined;
  try {
    const chunking = require('neo4j-driver-bolt-connection/lib/channel/chunking.js') as {
      Dechunker?: { prototype: Partial<CappedDechunker> };
    };
    proto = chunking.Dechunker?.prototype;
  } catch {
    return false;
  }
  const onHeader = proto?._onHeader;
  if (proto === undefined || typeof onHeader !== 'function' || onHeader.length !== 1) return false;
  proto._onHeader = function (this: CappedDechunker, header: number): State {
    this.pksCap ??= capOfNewConnections.getStore() ?? Infinity;
    if (header === 0 || this.pksCap === Infinity) {
      this.pksMessageBytes = 0;
      return onHeader.call(this, header);
    }
    this.pksMessageBytes = (this.pksMessageBytes ?? 0) + header;
    if (this.pksMessageBytes <= this.pksCap) return onHeader.call(this, header);
    this._currentMessage = [];
    this.onmessage(poisoned(new BoltMessageTooLargeError(this.pksCap)));
    return drain;
  };
  return true;
}

let installed: boolean | undefined;

/** Installs the cap once; whether it is in force (the driver's internals had the expected shape). */
export function boltMessageCapInstalled(): boolean {
  return (installed ??= install());
}
