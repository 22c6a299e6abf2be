/**
 * Who the client is and which origin it used (CONTRACT §1.2 `SVC_TRUSTED_PROXIES`): `X-Forwarded-For`, `-Host` and
 * `-Proto` are believed only when the direct peer is a trusted proxy; forwarded protocols other than `http` and
 * `https` are ignored. Rate limits key clients by address, IPv6 clients by their /64 (one host's share).
 */
import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';

/** Whether an address (a direct peer, or a hop of `X-Forwarded-For`) is a trusted proxy. */
export type ProxyTrust = (address: string | undefined) => boolean;

const V4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:a.b.c.d` (an IPv4 peer of a dual-stack socket) as the IPv4 address it is. */
const unmapped = (address: string): string => V4_MAPPED.exec(address)?.[1] ?? address;

/** The trust decision for the configured CIDRs (`a.b.c.d/n`, `x::/n`); nothing is trusted when there are none. */
export function proxyTrust(cidrs: readonly string[]): ProxyTrust {
  if (cidrs.length === 0) return () => false;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', bits = ''] = cidr.split('/');
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    list.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    if (address === undefined) return false;
    const plain = unmapped(address.trim());
    const family = isIP(plain);
    return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/** The rate-limit key of a client address: IPv4 as it is, IPv6 as its /64 network (`2001:db8:0:1::/64`). */
export function clientKey(address: string): string {
  const plain = unmapped(address);
  if (isIP(plain) !== 6) return plain;
  // The zone (`%eth0`) says nothing about the network; ipaddr.js refuses some zone names Node accepts.
  return `${ipaddr.IPv6.parse(plain.split('%', 1)[0]!)
    .parts.slice(0, 4)
    .map((h) => h.toString(16))
    .join(':')}::/64`;
}

/** The rate-limit key of a request's client (its address as `request.ip` resolved it through trusted proxies). */
export const requestClientKey = (request: FastifyRequest): string => clientKey(request.ip);

const lastEntry = (value: string | string[] | undefined): string | undefined => {
  const text = Array.isArray(value) ? value.at(-1) : value;
  const entry = text?.split(',').at(-1)?.trim();
  return entry === '' ? undefined : entry;
};

/** A `Host`-shaped value: a DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

const validHost = (value: string | undefined): string | undefined =>
  value !== undefined && HOST.test(value) ? value : undefined;

/** The protocol a trusted proxy forwarded (`http`/`https` only), else the connection's own. */
function requestProto(request: FastifyRequest, viaProxy: boolean): string {
  const forwardedProto = viaProxy ? lastEntry(request.headers['x-forwarded-proto'])?.toLowerCase() : undefined;
  const encrypted = (request.raw.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  return forwardedProto === 'http' || forwardedProto === 'https' ? forwardedProto : encrypted ? 'https' : 'http';
}

/**
 * The origin a trusted proxy forwarded (`<proto>://<X-Forwarded-Host>`), or `null`: the direct peer is not a trusted
 * proxy, or it forwarded no well-formed host.
 */
export function forwardedOrigin(request: FastifyRequest, trust: ProxyTrust): string | null {
  if (!trust(request.raw.socket?.remoteAddress)) return null;
  const host = validHost(lastEntry(request.headers['x-forwarded-host']));
  return host === undefined ? null : `${requestProto(request, true)}://${host}`;
}

/**
 * The origin a client addressed (`<proto>://<host>`): the forwarded protocol and host when the direct peer is a
 * trusted proxy (protocols other than `http`/`https` ignored), else the connection's own protocol and `Host`.
 */
export function requestOrigin(request: FastifyRequest, trust: ProxyTrust): string {
  const forwarded = forwardedOrigin(request, trust);
  if (forwarded !== null) return forwarded;
  const viaProxy = trust(request.raw.socket?.remoteAddress);
  return `${requestProto(request, viaProxy)}://${validHost(request.headers.host) ?? 'localhost'}`;
}

/** The public base URL of links the server hands out: `SVC_PUBLIC_URL`, else the origin the request addressed. */
export function publicBase(publicUrl: string | null, request: FastifyRequest): string {
  return publicUrl ?? requestOrigin(request, request.server.proxyTrust);
}
