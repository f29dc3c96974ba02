// Runs once before the test files: drops test databases left behind by runs that were killed
// (their names carry the creation time), so the shared PostgreSQL does not fill up.
import { MikroORM } from '@mikro-orm/postgresql';
import { TEST_DATABASE_URL } from './db.ts';

const STALE_MS = 2 * 60 * 60 * 1000;

export default async function setup(): Promise<void> {
  const orm = await MikroORM.init({ clientUrl: TEST_DATABASE_URL, entities: [], discovery: { warnWhenNoEntities: false }, pool: { min: 0, max: 1 } });
  try {
    const rows = await orm.em.getConnection().execute<{ datname: string }[]>("select datname from pg_database where datname like 'gw\\_test\\_%'");
    for (const { datname } of rows) {
      const created = parseInt(datname.split('_')[2] ?? '', 36);
      if (Number.isFinite(created) && Date.now() - created > STALE_MS) {
        await orm.em.getConnection().execute(`drop database if exists "${datname}" with (force)`);
      }
    }
  } finally {
    await orm.close(true);
  }
}
