// The secret box: AES-256-GCM sealing of secrets kept at rest, its key setting, and the key file
// of the embedded mode.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadControlPlaneEnv, loadEmbeddedEnv } from '../../src/platform/env.ts';
import {
  createSecretBox,
  generateSecretKey,
  loadOrCreateKeyFile,
  parseSecretKey,
  SecretBoxError,
  SecretKeyError,
} from '../../src/platform/secret-box.ts';

const KEY_BYTES = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));
const KEY_B64 = KEY_BYTES.toString('base64');
const KEY_HEX = KEY_BYTES.toString('hex');
const box = createSecretBox(KEY_B64);

/** Flips one bit of byte `at` in the base64 part `part` (1 iv, 2 tag, 3 ciphertext) of a sealed value. */
function flip(sealed: string, part: number, at = 0): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64');
  bytes[at] = bytes[at]! ^ 0x01;
  parts[part] = bytes.toString('base64');
  return parts.join('.');
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('seal and open', () => {
  it('round-trips any text, with a fresh iv each time, in the versioned format', () => {
    for (const plain of ['', 'sk-abc', 'Xk4dQ9'.repeat(20), 'unicode: żółw 🐢 ✓']) {
      const sealed = box.seal(plain);
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9+/]+=*\.[A-Za-z0-9+/]+=*\.[A-Za-z0-9+/]*=*$/);
      expect(box.open(sealed)).toBe(plain);
    }
    const secret = 'the-same-secret-twice-0123456789';
    const a = box.seal(secret);
    const b = box.seal(secret);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(Buffer.from(a.split('.')[1]!, 'base64')).toHaveLength(12);
    expect(Buffer.from(a.split('.')[2]!, 'base64')).toHaveLength(16);
    expect(box.open(a)).toBe(secret);
    expect(box.open(b)).toBe(secret);
  });

  it('opens with the same key given as hex, base64 or raw bytes', () => {
    const sealed = box.seal('portable');
    expect(createSecretBox(KEY_HEX).open(sealed)).toBe('portable');
    expect(createSecretBox(KEY_HEX.toUpperCase()).open(sealed)).toBe('portable');
    expect(createSecretBox(KEY_B64.replace(/=$/, '')).open(sealed)).toBe('portable');
    expect(createSecretBox(KEY_BYTES.toString('base64url')).open(sealed)).toBe('portable');
    expect(createSecretBox(new Uint8Array(KEY_BYTES)).open(sealed)).toBe('portable');
  });

  it('detects tampering with the iv, the tag or the ciphertext', () => {
    const sealed = box.seal('do not touch');
    for (const part of [1, 2, 3]) {
      expect(() => box.open(flip(sealed, part))).toThrow(SecretBoxError);
    }
    const [v, iv, tag, ct] = sealed.split('.') as [string, string, string, string];
    const shorter = Buffer.from(ct, 'base64').subarray(1).toString('base64');
    expect(() => box.open([v, iv, tag, shorter].join('.'))).toThrow(SecretBoxError);
    // Parts swapped between two sealed values of the same box do not open either.
    const other = box.seal('do not touch').split('.');
    expect(() => box.open([v, iv, other[2], ct].join('.'))).toThrow(SecretBoxError);
  });

  it('refuses malformed values with a reason, never with the plaintext', () => {
    const sealed = box.seal('x');
    const cases = ['', 'v1', 'v1.a.b', `v2.${sealed.slice(3)}`, `${sealed}.extra`, sealed.replace(/^v1\.[^.]+/, 'v1.!!!'), sealed.replace(/^v1\.[^.]+/, 'v1.AAAA')];
    for (const bad of cases) expect(() => box.open(bad), bad).toThrow(SecretBoxError);
    expect(() => box.open(`v2.${sealed.slice(3)}`)).toThrow(/unknown version/);
    expect(() => box.open(sealed.replace(/^v1\.[^.]+/, 'v1.AAAA'))).toThrow(/iv must be 12 bytes/);
  });

  it('does not open with another key', () => {
    const sealed = box.seal('mine');
    expect(() => createSecretBox(generateSecretKey()).open(sealed)).toThrow(SecretBoxError);
    const oneBitOff = Buffer.from(KEY_BYTES);
    oneBitOff[31] = oneBitOff[31]! ^ 0x80;
    expect(() => createSecretBox(oneBitOff).open(sealed)).toThrow(/cannot be opened/);
  });

  it('binds a value to its context when one is given', () => {
    const sealed = box.seal('row secret', 'api_key:1');
    expect(box.open(sealed, 'api_key:1')).toBe('row secret');
    expect(() => box.open(sealed, 'api_key:2')).toThrow(SecretBoxError);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
    expect(() => box.open(box.seal('no context'), 'api_key:1')).toThrow(SecretBoxError);
  });
});

describe('the key setting', () => {
  it('takes 32 bytes as base64 or 64 hex characters, and nothing else', () => {
    expect(parseSecretKey(KEY_B64)).toEqual(KEY_BYTES);
    expect(parseSecretKey(` ${KEY_HEX}\n`)).toEqual(KEY_BYTES);
    expect(parseSecretKey(generateSecretKey())).toHaveLength(32);
    const bad = [
      '',
      'short',
      Buffer.alloc(16).toString('base64'), // 16 bytes
      Buffer.alloc(33).toString('base64'), // 33 bytes
      Buffer.alloc(31).toString('hex'), // 62 hex characters
      Buffer.alloc(32).toString('hex') + 'ab', // 66 hex characters
      'g'.repeat(64),
      `${KEY_B64.slice(0, -2)}!=`,
    ];
    for (const v of bad) {
      expect(() => parseSecretKey(v), JSON.stringify(v)).toThrow(SecretKeyError);
      expect(() => createSecretBox(v), JSON.stringify(v)).toThrow(/must be 32 bytes, as base64 .* or hex/);
    }
    expect(() => createSecretBox(new Uint8Array(31))).toThrow(SecretKeyError);
  });

  it('is required for the control plane, named in the message when missing or bad', () => {
    const base = { DATABASE_URL: 'postgres://h/db', WORKER_TOKEN: 'x'.repeat(20) };
    const message = (env: Record<string, string>) => {
      try {
        loadControlPlaneEnv(env);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(message(base)).toContain('GATEWAY_SECRET_KEY: is required but not set');
    expect(message({ ...base, GATEWAY_SECRET_KEY: 'abc' })).toContain('GATEWAY_SECRET_KEY: must be 32 bytes');
    expect(message({ ...base, GATEWAY_SECRET_KEY: KEY_B64, ROTATION_INTERVAL_MS: '-1' })).toContain('ROTATION_INTERVAL_MS');
    expect(message({ ...base, GATEWAY_SECRET_KEY: KEY_B64, PUBLIC_CONTROL_PLANE_URL: 'ftp://x' })).toContain('PUBLIC_CONTROL_PLANE_URL: must be a http or https URL');
    expect(loadControlPlaneEnv({ ...base, GATEWAY_SECRET_KEY: KEY_HEX })).toMatchObject({ GATEWAY_SECRET_KEY: KEY_HEX, ROTATION_INTERVAL_MS: 60_000 });
    expect(loadControlPlaneEnv({ ...base, GATEWAY_SECRET_KEY: KEY_B64, ROTATION_INTERVAL_MS: '0', PUBLIC_CONTROL_PLANE_URL: 'https://gw.example.com' })).toMatchObject({
      ROTATION_INTERVAL_MS: 0,
      PUBLIC_CONTROL_PLANE_URL: 'https://gw.example.com',
    });
  });

  it('is optional for the embedded mode, but checked when given', () => {
    expect(loadEmbeddedEnv({}).GATEWAY_SECRET_KEY).toBeUndefined();
    expect(loadEmbeddedEnv({ GATEWAY_SECRET_KEY: KEY_B64 }).GATEWAY_SECRET_KEY).toBe(KEY_B64);
    expect(() => loadEmbeddedEnv({ GATEWAY_SECRET_KEY: 'nope' })).toThrow(/GATEWAY_SECRET_KEY: must be 32 bytes/);
  });
});

describe('the embedded key file', () => {
  it('is created once with mode 0600 and reused after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-secret-'));
    dirs.push(dir);
    const file = join(dir, 'nested', 'secret.key');
    const first = await loadOrCreateKeyFile(file);
    expect(first.created).toBe(true);
    expect(parseSecretKey(first.key)).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.key);
    const sealed = createSecretBox(first.key).seal('kept across restarts');

    const second = await loadOrCreateKeyFile(file);
    expect(second).toEqual({ key: first.key, created: false });
    expect(createSecretBox(second.key).open(sealed)).toBe('kept across restarts');
  });

  it('refuses a file that does not hold a key, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-secret-'));
    dirs.push(dir);
    const file = join(dir, 'secret.key');
    writeFileSync(file, 'not a key\n');
    await expect(loadOrCreateKeyFile(file)).rejects.toThrow(`${file}: must be 32 bytes`);
    expect(readFileSync(file, 'utf8')).toBe('not a key\n'); // never overwritten
  });
});
