import { describe, it, expect, afterAll } from 'vitest';
import { generateApiKeySecret, hashApiKey } from '../../src/domain/api-key-secret.ts';
import { ORGANISATION_KEY_SCOPES } from '../../src/domain/scopes.ts';
import { migrate, openOrm } from '../../src/persistence/orm.ts';
import { bootstrap } from '../../src/services/bootstrap/bootstrap.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const d of dbs) await d.drop();
});

describe('bootstrap on an empty database', () => {
  it('creates organisation, default workspace, owner and an admin key with every scope — once', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const first = await bootstrap(db.orm);
    expect(first.created).toBe(true);
    expect(first.adminKey).toMatch(/^[A-Za-z0-9]{48}$/);
    const second = await bootstrap(db.orm);
    expect(second).toEqual({ created: false, organisationId: first.organisationId, workspaceId: first.workspaceId });
    const sql = (q: string) => db.orm.em.getConnection().execute(q);
    expect(await sql('select count(*)::int n from organisation')).toEqual([{ n: 1 }]);
    expect(await sql("select slug, is_default from workspace")).toEqual([{ slug: 'ws-default', is_default: true }]);
    expect(await sql("select role from app_user")).toEqual([{ role: 'owner' }]);
    const [key] = (await sql("select type, scopes, key_hash, creation_mode from api_key")) as any[];
    expect(key).toMatchObject({ type: 'organisation-service', creation_mode: 'bootstrap', key_hash: await hashApiKey(first.adminKey!) });
    expect(key.scopes).toEqual([...ORGANISATION_KEY_SCOPES]);
    expect(await sql("select action from audit_event")).toEqual([{ action: 'organisation.bootstrap' }]);
  });

  it('uses GATEWAY_ADMIN_KEY as the admin key when given', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const chosen = generateApiKeySecret(44);
    const r = await bootstrap(db.orm, { adminKey: chosen });
    expect(r.adminKey).toBe(chosen);
    const [row] = (await db.orm.em.getConnection().execute("select key_hash from api_key")) as any[];
    expect(row.key_hash).toBe(await hashApiKey(chosen));
  });

  it('runs exactly once when several replicas start together', async () => {
    const db = await createTestDatabase({ migrate: false });
    dbs.push(db);
    // Three "replicas": separate ORMs (separate pools) migrating and bootstrapping concurrently.
    const replicas = await Promise.all([0, 1, 2].map(() => openOrm({ databaseUrl: db.url, poolMax: 3 })));
    try {
      const results = await Promise.all(replicas.map(async (orm) => {
        await migrate(orm);
        return bootstrap(orm);
      }));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.organisationId)).size).toBe(1);
      const [n] = await db.orm.em.getConnection().execute('select (select count(*) from organisation)::int o, (select count(*) from api_key)::int k');
      expect(n).toEqual({ o: 1, k: 1 });
    } finally {
      for (const o of replicas) await o.close(true);
    }
  });
});
