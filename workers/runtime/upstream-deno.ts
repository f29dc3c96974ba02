// Upstream HTTP for the Deno runtime: the global fetch, behind a DNS guard so a host name
// that resolves to a private or reserved address is refused (mirrors upstream-node.ts).
// Excluded from tsc (Node types); checked with `deno check`.
declare const Deno: any;

import { isTrusted, type TrustedHosts } from '../../src/domain/net/custom-host.ts';
import { ipVersion, isBlockedAddress } from '../../src/domain/net/ip-address.ts';
import type { UpstreamFetch } from '../contracts.ts';

export interface DenoUpstreamOptions {
  trustedHosts: TrustedHosts;
  /** Injected for tests; defaults to Deno.resolveDns. */
  resolveDns?: (hostname: string, type: 'A' | 'AAAA') => Promise<string[]>;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(hostname: string) {
    super(`${hostname} resolves to a private or reserved address`);
    this.name = 'BlockedAddressError';
  }
}

const isNotFound = (err: unknown): boolean =>
  (typeof Deno !== 'undefined' && err instanceof Deno.errors.NotFound) || (err as { name?: string } | null)?.name === 'NotFound';

/** All A and AAAA addresses of `hostname`; a missing record set for one family is not an error. */
export async function resolveAll(hostname: string, resolve: NonNullable<DenoUpstreamOptions['resolveDns']>): Promise<string[]> {
  const [a, aaaa] = await Promise.allSettled([resolve(hostname, 'A'), resolve(hostname, 'AAAA')]);
  if (a.status === 'rejected' && aaaa.status === 'rejected') throw a.reason;
  for (const r of [a, aaaa]) if (r.status === 'rejected' && !isNotFound(r.reason)) throw r.reason;
  const list = [...(a.status === 'fulfilled' ? a.value : []), ...(aaaa.status === 'fulfilled' ? aaaa.value : [])];
  if (list.length === 0) throw new Deno.errors.NotFound(`${hostname}: no A or AAAA records`);
  return list;
}

/** Throws BlockedAddressError when `url`'s host name resolves to any blocked address. */
export async function guardUrl(url: URL, trusted: TrustedHosts, resolve: NonNullable<DenoUpstreamOptions['resolveDns']>): Promise<void> {
  const hostname = url.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isTrusted(trusted, url)) return;
  // An IP literal is its own answer (as with Node's lookup); only names go to DNS.
  const addresses = ipVersion(hostname) !== null ? [hostname] : await resolveAll(hostname, resolve);
  if (addresses.some((a) => isBlockedAddress(a))) throw new BlockedAddressError(hostname);
}

export function createDenoUpstream(opts: DenoUpstreamOptions): { fetch: UpstreamFetch; close(): Promise<void> } {
  const resolve = opts.resolveDns ?? ((hostname: string, type: 'A' | 'AAAA') => Deno.resolveDns(hostname, type) as Promise<string[]>);
  const fetch: UpstreamFetch = async (url, req) => {
    await guardUrl(new URL(url), opts.trustedHosts, resolve);
    const res = await globalThis.fetch(url, { method: req.method, headers: req.headers, body: req.body as BodyInit | null, signal: req.signal, ...(req.body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
    const headers: Record<string, string | string[]> = {};
    res.headers.forEach((value: string, name: string) => {
      headers[name] = value;
    });
    return {
      status: res.status,
      headers,
      bytes: async () => new Uint8Array(await res.arrayBuffer()),
      stream: () => res.body ?? new ReadableStream({ start: (c) => c.close() }),
      discard: () => void res.body?.cancel().catch(() => {}),
    };
  };
  return { fetch, close: async () => {} };
}
