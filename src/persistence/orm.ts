import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
  debug?: boolean;
}

const MIGRATION_LOCK = 72_001_001; // advisory lock id: replicas starting together migrate one at a time

export async function openOrm(opts: OrmOptions): Promise<MikroORM> {
  const orm = await MikroORM.init({
    clientUrl: opts.databaseUrl,
    entities: ENTITIES,
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, disableForeignKeys: false, snapshot: false, silent: true },
    debug: opts.debug ?? false,
    allowGlobalContext: false,
    ensureDatabase: false,
  });
  return orm;
}

/** Applies pending migrations; safe when several replicas start at once. */
export async function migrate(orm: MikroORM, opts: { lock?: boolean } = {}): Promise<void> {
  // PGlite is one session: a lock held on one pooled connection would wrap the migrator's own.
  if (opts.lock === false) {
    await orm.getMigrator().up();
    return;
  }
  const conn = orm.em.getConnection();
  const knex = conn.getKnex();
  // A dedicated connection holds the session lock for the whole run.
  await knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
    await orm.getMigrator().up();
  });
}
