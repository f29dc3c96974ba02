// Validates a caller-supplied upstream base URL (x-gateway-custom-host, config custom_host).
import { invalidParameter, type AppError } from '../errors.ts';
import { isBlockedAddress, isBlockedHostname, ipVersion } from './ip-address.ts';

export interface TrustedHosts {
  /** `host` or `host:port`, lower case. */
  has(hostOrHostPort: string): boolean;
}

export function trustedHostSet(entries: string[]): TrustedHosts {
  const set = new Set(entries.map((e) => e.trim().toLowerCase()).filter(Boolean));
  return { has: (h) => set.has(h) };
}

export function isTrusted(trusted: TrustedHosts, url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return trusted.has(host) || trusted.has(`${host}:${port}`) || trusted.has(`${url.hostname.toLowerCase()}:${port}`);
}

/** Returns the parsed URL or the 400 that names the problem. */
export function checkCustomHost(raw: string, trusted: TrustedHosts, param = 'x-gateway-custom-host'): URL | AppError {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return invalidParameter(param, `${param} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalidParameter(param, `${param} must use http or https`);
  if (url.hash || raw.includes('#')) return invalidParameter(param, `${param} must not contain a fragment`);
  if (url.username || url.password) return invalidParameter(param, `${param} must not contain credentials`);
  if (isTrusted(trusted, url)) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipVersion(host) !== null ? isBlockedAddress(host) : isBlockedHostname(host)) {
    return invalidParameter(param, `${param} points to a private or reserved address`);
  }
  return url;
}
