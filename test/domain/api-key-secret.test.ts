import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { generateApiKeySecret, hashApiKey, looksLikeApiKey, maskApiKey } from '../../src/domain/api-key-secret.ts';

describe('API key secrets', () => {
  it('are alphanumeric, at least 40 characters and unique', () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKeySecret()));
    expect(keys.size).toBe(500);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9]{48}$/);
  });

  it('use the whole alphabet without favouring characters', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) for (const c of generateApiKeySecret()) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (2000 * 48) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.15);
  });

  it('hash to the hex SHA-256 of the secret', async () => {
    const k = generateApiKeySecret();
    expect(await hashApiKey(k)).toBe(createHash('sha256').update(k).digest('hex'));
  });

  it('mask to a short prefix and suffix only', () => {
    expect(maskApiKey('AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdXY')).toBe('AbCd*******XY');
  });

  it('reject obvious garbage before any lookup', () => {
    expect(looksLikeApiKey(generateApiKeySecret())).toBe(true);
    expect(looksLikeApiKey('short')).toBe(false);
    expect(looksLikeApiKey('has spaces in it and is long enough')).toBe(false);
  });
});
