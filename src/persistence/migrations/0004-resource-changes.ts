import { Migration } from '@mikro-orm/migrations';

// Watch (issue 5, item 2): every change to a resource a worker caches is logged with a version
// from resource_revision_seq, so every control-plane replica hands workers the same numbers, and
// announced with NOTIFY so replicas push it to their workers at once (ARCHITECTURE.md, Watch).
export class Migration0004ResourceChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table resource_change (
      version bigint primary key default nextval('resource_revision_seq'),
      resource_type varchar(32) not null,
      resource_key varchar(255) not null,
      resource_id uuid null,
      action varchar(16) not null check (action in ('upsert','delete')),
      created_at timestamptz not null default now());`);
    this.addSql(`create index resource_change_created_at on resource_change (created_at);`);

    // The highest version the retention job removed: a worker whose last applied version is
    // below it may have missed changes and is told to drop its cache (a `reset`).
    this.addSql(`create table resource_change_horizon (
      singleton boolean primary key default true check (singleton),
      version bigint not null default 0);`);
    this.addSql(`insert into resource_change_horizon (singleton, version) values (true, 0);`);

    // One row per key identity (the secret's hash) the statement touched: the current hash, the
    // previous one of a rotation, and hashes that left the row (rotation moves them). A hash that
    // left the row, a deleted row (hard delete or a cascade from its user, workspace or organisation)
    // and a soft-deleted row are deletes; everything else is an upsert.
    this.addSql(`create or replace function api_key_resource_change() returns trigger language plpgsql as $$
      declare
        kept text[] := '{}';
        gone text[] := '{}';
        h text;
        row_id uuid;
        act varchar(16);
      begin
        if tg_op = 'DELETE' then
          row_id := old.id;
          gone := array[old.key_hash, old.previous_key_hash];
        else
          row_id := new.id;
          if new.deleted_at is not null then
            gone := array[new.key_hash, new.previous_key_hash];
          else
            kept := array[new.key_hash, new.previous_key_hash];
          end if;
          if tg_op = 'UPDATE' then
            gone := gone || array[old.key_hash, old.previous_key_hash];
          end if;
        end if;
        for h in select distinct x from unnest(kept || gone) as x where x is not null order by 1 loop
          act := case when h = any(kept) then 'upsert' else 'delete' end;
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('api_key', h, row_id, act);
        end loop;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger api_key_resource_change after insert or update or delete on api_key
      for each row execute function api_key_resource_change();`);
  }
}
