// Secrets kept at rest in PostgreSQL (ARCHITECTURE.md: "provider secrets are encrypted at
// rest"): AES-256-GCM under one 32-byte process key (GATEWAY_SECRET_KEY). A sealed value is
// self-describing and versioned, `v1.<iv>.<tag>.<ciphertext>` (base64 each), so the format or
// the key can change later without guessing what an old value is.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

/** A bad key setting (not 32 bytes, not base64 or hex). */
export class SecretKeyError extends Error {}

/** A sealed value that cannot be opened: malformed, tampered with, or sealed under another key. */
export class SecretBoxError extends Error {}

export interface SecretBox {
  /**
   * Encrypts `plaintext`. `context` (optional) binds the value to where it is stored, e.g. a
   * row id: opening it with another context fails, so a sealed value cannot be moved elsewhere.
   */
  seal(plaintext: string, context?: string): string;
  /** Decrypts a value made by {@link seal} with the same key and context; throws {@link SecretBoxError} otherwise. */
  open(sealed: string, context?: string): string;
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

export const SECRET_KEY_FORMAT = `must be ${SECRET_KEY_BYTES} bytes, as base64 (44 characters, e.g. \`openssl rand -base64 32\`) or hex (64 characters)`;

/** The 32 key bytes of a setting given as 64 hex characters or as base64 (standard or URL-safe). */
export function parseSecretKey(value: string): Buffer {
  const v = value.trim();
  if (HEX_KEY.test(v)) return Buffer.from(v, 'hex');
  if (BASE64_KEY.test(v)) {
    const bytes = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === SECRET_KEY_BYTES) return bytes;
  }
  throw new SecretKeyError(SECRET_KEY_FORMAT);
}

export function isValidSecretKey(value: string): boolean {
  try {
    parseSecretKey(value);
    return true;
  } catch {
    return false;
  }
}

/** A fresh random key, base64. */
export function generateSecretKey(): string {
  return randomBytes(SECRET_KEY_BYTES).toString('base64');
}

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

function fromB64(part: string, what: string, bytes?: number): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(part)) throw new SecretBoxError(`sealed value: ${what} is not base64`);
  const out = Buffer.from(part, 'base64');
  if (bytes !== undefined && out.length !== bytes) throw new SecretBoxError(`sealed value: ${what} must be ${bytes} bytes`);
  return out;
}

export function createSecretBox(key: string | Uint8Array): SecretBox {
  const k = typeof key === 'string' ? parseSecretKey(key) : Buffer.from(key);
  if (k.length !== SECRET_KEY_BYTES) throw new SecretKeyError(SECRET_KEY_FORMAT);
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', k, iv, { authTagLength: TAG_BYTES });
      if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, b64(iv), b64(cipher.getAuthTag()), b64(ciphertext)].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 4) throw new SecretBoxError('sealed value: expected v1.<iv>.<tag>.<ciphertext>');
      const [version, ivPart, tagPart, ctPart] = parts as [string, string, string, string];
      if (version !== VERSION) throw new SecretBoxError(`sealed value: unknown version ${version.slice(0, 8)}`);
      const iv = fromB64(ivPart, 'iv', IV_BYTES);
      const tag = fromB64(tagPart, 'tag', TAG_BYTES);
      const ciphertext = fromB64(ctPart, 'ciphertext');
      try {
        const decipher = createDecipheriv('aes-256-gcm', k, iv, { authTagLength: TAG_BYTES });
        decipher.setAuthTag(tag);
        if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('sealed value cannot be opened: tampered with, or sealed under another key or context');
      }
    },
  };
}

/**
 * The key kept in `path` (embedded mode): created with a random key (mode 0600) on first use,
 * read on later starts. A file that does not hold a valid key is an error naming the file.
 */
export async function loadOrCreateKeyFile(path: string): Promise<{ key: string; created: boolean }> {
  await mkdir(dirname(path), { recursive: true });
  const fresh = generateSecretKey();
  try {
    await writeFile(path, `${fresh}\n`, { mode: 0o600, flag: 'wx' }); // exclusive: never overwrite a key
    await chmod(path, 0o600); // the umask may have narrowed the mode, never widened it; be explicit
    return { key: fresh, created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stored = (await readFile(path, 'utf8')).trim();
  if (!isValidSecretKey(stored)) throw new SecretKeyError(`${path}: ${SECRET_KEY_FORMAT}`);
  return { key: stored, created: false };
}
