// Upstream HTTP for the Node runtime: undici's request() over kept-alive connections, with a
// DNS guard so a host name that resolves to a private address is refused at connect time
// (no rebinding window).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { isBlockedAddress } from '../../src/domain/net/ip-address.ts';
import type { TrustedHosts } from '../../src/domain/net/custom-host.ts';
import type { UpstreamFetch, UpstreamResponse } from '../contracts.ts';

export interface NodeUpstreamOptions {
  trustedHosts: TrustedHosts;
  connectionsPerOrigin?: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function guardedLookup(trusted: TrustedHosts) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!trusted.has(hostname.toLowerCase()) && list.some((a) => isBlockedAddress(a.address))) {
        const e = new Error(`${hostname} resolves to a private or reserved address`) as NodeJS.ErrnoException;
        e.code = 'EBLOCKEDADDRESS';
        return callback(e, []);
      }
      if (options.all) return callback(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export function createNodeUpstream(opts: NodeUpstreamOptions): { fetch: UpstreamFetch; close(): Promise<void> } {
  const agent = new Agent({
    connections: opts.connectionsPerOrigin ?? 256,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connect: { lookup: guardedLookup(opts.trustedHosts) as never },
  });
  const fetch: UpstreamFetch = async (url, req) => {
    const res = await request(url, {
      method: req.method as 'POST',
      headers: req.headers,
      // Web streams (relayed bodies) go through as a Node stream: no buffering.
      body: req.body instanceof ReadableStream ? Readable.fromWeb(req.body as never) : req.body,
      signal: req.signal,
      dispatcher: agent,
    });
    const body = res.body;
    const answer: UpstreamResponse = {
      status: res.statusCode,
      headers: res.headers,
      bytes: async () => new Uint8Array(await body.arrayBuffer()),
      stream: () => Readable.toWeb(body) as ReadableStream<Uint8Array>,
      discard: () => {
        body.destroy();
      },
    };
    return answer;
  };
  return { fetch, close: () => agent.close() };
}
