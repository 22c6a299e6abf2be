/** Which claim `pdf_url`s the contributor downloads and hands to the parser (CONTRACT §16.5 "PDF URL trust"). */
import { normalizeHost } from '../../../config/hosts.js';

const ALWAYS_TRUSTED = ['arxiv.org', 'export.arxiv.org'];

const hostnameOf = (hostPort: string) => hostPort.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');

/** Trusted: arXiv, the configured server's host (port ignored), or a host of `trusted_pdf_hosts`. */
export function isTrustedPdfUrl(url: string, serverBaseUrl: string, extraHosts: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  const host = parsed.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const trusted = [
    ...ALWAYS_TRUSTED,
    hostnameOf(normalizeHost(serverBaseUrl)),
    ...extraHosts.map((h) => hostnameOf(normalizeHost(h))),
  ];
  return trusted.includes(host);
}
