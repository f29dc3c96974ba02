import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSecretReference, secretResolverOptionsFromEnv, type SecretReferenceTarget } from '../../../src/services/secret-references/resolve-secret-reference.ts';

let dir: string;
let root: string;
const ref = (r: Partial<SecretReferenceTarget>): SecretReferenceTarget => ({ manager_type: 'env', secret_path: '', secret_key: null, auth_config: {}, ...r });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secret-ref-'));
  root = join(dir, 'secrets');
  await mkdir(join(root, 'nested'), { recursive: true });
  await writeFile(join(root, 'openai'), 'sk-file-secret\n');
  await writeFile(join(root, 'nested', 'multi.json'), JSON.stringify({ api_key: 'sk-json', n: 5 }));
  await writeFile(join(dir, 'outside'), 'do-not-read');
  await symlink(join(dir, 'outside'), join(root, 'escape'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('resolveSecretReference', () => {
  const env = { SECRETREF_OPENAI: 'sk-env', SECRETREF_MULTI: '{"a":"b"}', GATEWAY_SECRET_KEY: 'master', DATABASE_URL: 'postgres://x' };

  it('reads prefixed environment variables, whole or by key', async () => {
    const opts = secretResolverOptionsFromEnv(env);
    expect(await resolveSecretReference(ref({ secret_path: 'SECRETREF_OPENAI' }), opts)).toBe('sk-env');
    expect(await resolveSecretReference(ref({ secret_path: 'SECRETREF_MULTI', secret_key: 'a' }), opts)).toBe('b');
    await expect(resolveSecretReference(ref({ secret_path: 'SECRETREF_MULTI', secret_key: 'z' }), opts)).rejects.toMatchObject({ code: 'secret_unavailable' });
    await expect(resolveSecretReference(ref({ secret_path: 'SECRETREF_OPENAI', secret_key: 'a' }), opts)).rejects.toMatchObject({ code: 'secret_unavailable' });
    await expect(resolveSecretReference(ref({ secret_path: 'SECRETREF_MISSING' }), opts)).rejects.toMatchObject({ status: 502, code: 'secret_unavailable' });
  });

  it('never reads the control plane’s own settings', async () => {
    const opts = secretResolverOptionsFromEnv(env);
    for (const name of ['GATEWAY_SECRET_KEY', 'DATABASE_URL']) {
      const err = await resolveSecretReference(ref({ secret_path: name }), opts).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 403, code: 'secret_path_not_allowed' });
      expect(String((err as Error).message)).not.toContain(env[name as keyof typeof env]);
    }
    const custom = secretResolverOptionsFromEnv({ ...env, SECRET_REFERENCE_ENV_PREFIX: 'DATABASE_' });
    expect(await resolveSecretReference(ref({ secret_path: 'DATABASE_URL' }), custom)).toBe('postgres://x');
  });

  it('reads files inside the secrets directory only', async () => {
    const opts = secretResolverOptionsFromEnv({ SECRET_REFERENCE_FILE_ROOT: root });
    expect(await resolveSecretReference(ref({ manager_type: 'file', secret_path: 'openai' }), opts)).toBe('sk-file-secret');
    expect(await resolveSecretReference(ref({ manager_type: 'file', secret_path: 'nested/multi.json', secret_key: 'api_key' }), opts)).toBe('sk-json');
    expect(await resolveSecretReference(ref({ manager_type: 'file', secret_path: 'nested/multi.json', secret_key: 'n' }), opts)).toBe('5');
    await expect(resolveSecretReference(ref({ manager_type: 'file', secret_path: '../outside' }), opts)).rejects.toMatchObject({ code: 'secret_path_not_allowed' });
    await expect(resolveSecretReference(ref({ manager_type: 'file', secret_path: 'escape' }), opts)).rejects.toMatchObject({ code: 'secret_path_not_allowed' });
    await expect(resolveSecretReference(ref({ manager_type: 'file', secret_path: 'nested' }), opts)).rejects.toMatchObject({ code: 'secret_unavailable' });
    await expect(resolveSecretReference(ref({ manager_type: 'file', secret_path: 'absent' }), opts)).rejects.toMatchObject({ code: 'secret_unavailable' });
    await expect(resolveSecretReference(ref({ manager_type: 'file', secret_path: 'openai' }), {})).rejects.toMatchObject({ status: 501, code: 'secret_manager_unsupported' });
  });

  it('answers unsupported for the cloud managers, naming them', async () => {
    for (const [type, name] of [['aws_sm', 'AWS Secrets Manager'], ['azure_kv', 'Azure Key Vault'], ['hashicorp_vault', 'HashiCorp Vault']] as const) {
      const err = await resolveSecretReference(ref({ manager_type: type, secret_path: 'x' }), {}).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 501, code: 'secret_manager_unsupported', param: 'secret_reference' });
      expect((err as Error).message).toContain(name);
    }
  });
});
