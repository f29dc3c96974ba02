// Resolving a secret reference into the secret it points at (issue 4 item 5: "resolved by the
// control plane when it hands credentials to workers"). The provider resolver calls this just
// before it sends a provider's credentials to a worker; the value is never stored or logged.
//
// Backends that run here with nothing but the control plane's own host: `env` and `file`. The
// cloud managers of the spec (AWS Secrets Manager, Azure Key Vault, HashiCorp Vault) need network
// clients this build does not ship: they answer `secret_manager_unsupported`, naming the manager.
import { realpath, readFile as fsReadFile, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from '../../domain/errors.ts';
import type { ManagerType } from './secret-reference-input.ts';

export interface SecretReferenceTarget {
  manager_type: ManagerType;
  secret_path: string;
  /** A key inside a multi-value secret: the stored value is then a JSON object. */
  secret_key: string | null;
  /** Opened (not masked): how to reach the manager. */
  auth_config: Record<string, unknown>;
}

export interface SecretResolverOptions {
  /** The environment `env` references read (normally process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Only variables with this prefix may be read, so a reference can never name the control plane's
   * own settings (DATABASE_URL, GATEWAY_SECRET_KEY, …). Default `SECRETREF_`.
   */
  envPrefix?: string;
  /** The directory `file` references are read from; null or absent: file references are disabled. */
  fileRoot?: string | null;
}

/** Settings from an environment: SECRET_REFERENCE_ENV_PREFIX and SECRET_REFERENCE_FILE_ROOT. */
export function secretResolverOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): SecretResolverOptions {
  return { env, envPrefix: env.SECRET_REFERENCE_ENV_PREFIX || DEFAULT_ENV_PREFIX, fileRoot: env.SECRET_REFERENCE_FILE_ROOT || null };
}

export const DEFAULT_ENV_PREFIX = 'SECRETREF_';
const MAX_FILE_BYTES = 64 * 1024;

/** Failures name the reference's path, never a value. */
export class SecretResolutionError extends AppError {
  constructor(status: number, code: string, message: string) {
    super(status, status >= 500 ? 'server_error' : 'invalid_request_error', code, message, 'secret_reference');
    this.name = 'SecretResolutionError';
  }
}

const unavailable = (message: string) => new SecretResolutionError(502, 'secret_unavailable', message);

/** A key of a JSON-object secret; strings as they are, other JSON values serialised. */
function pick(raw: string, key: string | null, where: string): string {
  if (key === null) return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw unavailable(`${where} is not a JSON object, so it has no key ${key}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw unavailable(`${where} is not a JSON object, so it has no key ${key}`);
  if (!Object.hasOwn(parsed, key)) throw unavailable(`${where} has no key ${key}`);
  const v = (parsed as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : JSON.stringify(v);
}

async function fromEnv(ref: SecretReferenceTarget, opts: SecretResolverOptions): Promise<string> {
  const prefix = opts.envPrefix ?? DEFAULT_ENV_PREFIX;
  const name = ref.secret_path;
  if (!prefix || !name.startsWith(prefix)) {
    throw new SecretResolutionError(403, 'secret_path_not_allowed', `Environment secret references must name a variable starting with ${prefix}`);
  }
  const value = opts.env?.[name];
  if (value === undefined || value === '') throw unavailable(`Environment variable ${name} is not set`);
  return pick(value, ref.secret_key, `Environment variable ${name}`);
}

async function fromFile(ref: SecretReferenceTarget, opts: SecretResolverOptions): Promise<string> {
  if (!opts.fileRoot) throw new SecretResolutionError(501, 'secret_manager_unsupported', 'File secret references are disabled: no secrets directory is configured (SECRET_REFERENCE_FILE_ROOT)');
  const root = await realpath(opts.fileRoot);
  const wanted = resolve(root, ref.secret_path);
  let real: string;
  try {
    real = await realpath(wanted);
  } catch {
    throw unavailable(`Secret file ${ref.secret_path} does not exist`);
  }
  // Symlinks included: whatever the path resolves to must stay inside the secrets directory.
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    throw new SecretResolutionError(403, 'secret_path_not_allowed', `Secret file ${ref.secret_path} is outside the secrets directory`);
  }
  const info = await stat(real);
  if (!info.isFile()) throw unavailable(`Secret file ${ref.secret_path} is not a file`);
  if (info.size > MAX_FILE_BYTES) throw unavailable(`Secret file ${ref.secret_path} is larger than ${MAX_FILE_BYTES} bytes`);
  // One trailing newline is how files are usually written, not part of the secret.
  const raw = (await fsReadFile(real, 'utf8')).replace(/\r?\n$/, '');
  return pick(raw, ref.secret_key, `Secret file ${ref.secret_path}`);
}

const MANAGER_NAMES: Record<string, string> = { aws_sm: 'AWS Secrets Manager', azure_kv: 'Azure Key Vault', hashicorp_vault: 'HashiCorp Vault' };

/** The secret a reference points at, as a string; throws SecretResolutionError. */
export async function resolveSecretReference(ref: SecretReferenceTarget, opts: SecretResolverOptions = {}): Promise<string> {
  switch (ref.manager_type) {
    case 'env':
      return fromEnv(ref, opts);
    case 'file':
      return fromFile(ref, opts);
    default:
      throw new SecretResolutionError(
        501,
        'secret_manager_unsupported',
        `Resolving ${MANAGER_NAMES[ref.manager_type] ?? ref.manager_type} references is not supported by this control plane (supported here: env, file)`,
      );
  }
}
