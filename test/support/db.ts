// Each test file gets its own PostgreSQL database, so files run in parallel on the real server.
import { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openOrm } from '../../src/persistence/orm.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (orm: MikroORM) => Promise<T>): Promise<T> {
  const orm = await MikroORM.init({ clientUrl: TEST_DATABASE_URL, entities: [], discovery: { warnWhenNoEntities: false }, pool: { min: 0, max: 1 } });
  try {
    return await fn(orm);
  } finally {
    await orm.close(true);
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  /** An ORM on the new, migrated database. */
  orm: MikroORM;
  drop(): Promise<void>;
}

export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `gw_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await admin((orm) => orm.em.getConnection().execute(`create database "${name}"`));
  const url = withDatabase(TEST_DATABASE_URL, name);
  const orm = await openOrm({ databaseUrl: url, poolMax: 5 });
  if (opts.migrate !== false) await migrate(orm);
  return {
    name,
    url,
    orm,
    async drop() {
      await orm.close(true);
      await admin((o) => o.em.getConnection().execute(`drop database if exists "${name}" with (force)`));
    },
  };
}
