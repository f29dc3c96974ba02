// API key secrets: alphanumeric only (spec, Authentication 5), stored as SHA-256.
// Web Crypto keeps this usable by workers on Node and Deno alike.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_LENGTH = 48;

/** A fresh secret with ~285 bits of entropy (48 chars from 62, rejection-sampled so there is no bias). */
export function generateApiKeySecret(length = API_KEY_LENGTH): string {
  const out: string[] = [];
  const limit = 256 - (256 % ALPHABET.length); // 248: bytes at or above are rejected
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < limit) out.push(ALPHABET[b % ALPHABET.length]!);
      if (out.length === length) break;
    }
  }
  return out.join('');
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export async function hashApiKey(raw: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(raw)));
  let hex = '';
  for (const b of digest) hex += HEX[b];
  return hex;
}

/** What lists and gets show instead of the secret, e.g. `Xk4d*******S4`. */
export function maskApiKey(raw: string): string {
  return `${raw.slice(0, 4)}*******${raw.slice(-2)}`;
}

/** Shape check before hashing: rejects obvious garbage without a lookup. */
export function looksLikeApiKey(raw: string): boolean {
  return raw.length >= 16 && raw.length <= 256 && /^[A-Za-z0-9_-]+$/.test(raw);
}
