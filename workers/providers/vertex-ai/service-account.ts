// Google service-account key -> OAuth access token (RFC 7523 JWT bearer grant): an RS256 JWT
// signed with the key's private key, posted as `assertion` with grant_type
// urn:ietf:params:oauth:grant-type:jwt-bearer and scope cloud-platform
// (https://developers.google.com/identity/protocols/oauth2/service-account#httprest).
// Tokens are cached per key and endpoint until shortly before they expire; concurrent calls
// for one key share one exchange.
import { importPKCS8, SignJWT } from 'jose';
import { AppError } from '../../../src/domain/errors.ts';
import type { UpstreamFetch } from '../../contracts.ts';

export const DEFAULT_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const ASSERTION_LIFETIME_S = 3600;
/** Refresh this long before expiry (or at half-life for short-lived tokens). */
const REFRESH_MARGIN_MS = 5 * 60_000;
/** Header-supplied keys could grow the cache without bound: keep the most recent ones. */
const MAX_CACHED = 1000;

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
}

export function parseServiceAccount(json: string): ServiceAccount {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new AppError(400, 'invalid_request_error', 'invalid_service_account', 'vertex_service_account_json is not valid JSON.');
  }
  if (typeof parsed?.client_email !== 'string' || typeof parsed.private_key !== 'string') {
    throw new AppError(400, 'invalid_request_error', 'invalid_service_account', 'vertex_service_account_json needs client_email and private_key.');
  }
  return parsed as unknown as ServiceAccount;
}

interface Cached {
  token: string;
  refreshAt: number;
}

export class TokenCache {
  private readonly tokens = new Map<string, Cached>();
  private readonly pending = new Map<string, Promise<Cached>>();

  /**
   * An access token for the key. `tokenUrl` is the configured endpoint, never the key file's
   * `token_uri`: key files can arrive in request headers, and must not choose where we post.
   */
  async token(account: ServiceAccount, tokenUrl: string, upstream: UpstreamFetch, now: () => number): Promise<string> {
    // The private key itself is part of the key: email and key id are public, and a key file
    // naming someone else's account must not be handed that account's cached token.
    const key = `${tokenUrl}\n${account.client_email}\n${await sha256Hex(account.private_key)}`;
    const cached = this.tokens.get(key);
    if (cached && now() < cached.refreshAt) return cached.token;
    let exchange = this.pending.get(key);
    if (!exchange) {
      exchange = exchangeToken(account, tokenUrl, upstream, now).finally(() => this.pending.delete(key));
      this.pending.set(key, exchange);
    }
    const fresh = await exchange;
    this.tokens.delete(key);
    this.tokens.set(key, fresh);
    if (this.tokens.size > MAX_CACHED) this.tokens.delete(this.tokens.keys().next().value as string);
    return fresh.token;
  }

  clear(): void {
    this.tokens.clear();
  }
}

export const tokenCache = new TokenCache();

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function signAssertion(account: ServiceAccount, tokenUrl: string, nowMs: number): Promise<string> {
  let key: CryptoKey;
  try {
    key = await importPKCS8(account.private_key, 'RS256');
  } catch {
    throw new AppError(400, 'invalid_request_error', 'invalid_service_account', 'The service account private_key is not a PKCS#8 RSA key.');
  }
  const iat = Math.floor(nowMs / 1000);
  const header: { alg: string; typ: string; kid?: string } = { alg: 'RS256', typ: 'JWT' };
  if (account.private_key_id) header.kid = account.private_key_id;
  return new SignJWT({ scope: SCOPE })
    .setProtectedHeader(header)
    .setIssuer(account.client_email)
    .setSubject(account.client_email)
    .setAudience(tokenUrl)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_LIFETIME_S)
    .sign(key);
}

async function exchangeToken(account: ServiceAccount, tokenUrl: string, upstream: UpstreamFetch, now: () => number): Promise<Cached> {
  const assertion = await signAssertion(account, tokenUrl, now());
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString();
  const started = now();
  let status: number;
  let text: string;
  try {
    const res = await upstream(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form });
    status = res.status;
    text = new TextDecoder().decode(await res.bytes());
  } catch (err) {
    throw new AppError(502, 'upstream_error', 'token_exchange_unreachable', `Could not reach the Google token endpoint: ${(err as Error).message ?? String(err)}`);
  }
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // reported below
  }
  if (status < 200 || status >= 300 || typeof json.access_token !== 'string') {
    const reason = typeof json.error_description === 'string' ? json.error_description : typeof json.error === 'string' ? json.error : `HTTP ${status}`;
    throw new AppError(401, 'authentication_error', 'token_exchange_failed', `Google rejected the service account token exchange: ${reason}`);
  }
  const lifetimeMs = (typeof json.expires_in === 'number' ? json.expires_in : 3600) * 1000;
  return { token: json.access_token, refreshAt: started + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2) };
}
