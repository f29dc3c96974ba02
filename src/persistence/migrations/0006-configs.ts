import { Migration } from '@mikro-orm/migrations';

// Configs (issue 4, item 1; control-plane-schemas 2.2): saved routing configs and their versions.
// Every write is logged in resource_change (like api_key) so workers can be told (issue 5).
export class Migration0006Configs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table config (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      name varchar(255) not null,
      slug varchar(255) not null,
      is_default int not null default 0 check (is_default in (0,1)),
      status varchar(16) not null default 'active',
      owner_id varchar(255) null,
      updated_by varchar(255) null,
      current_version_id uuid null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz null,
      unique (organisation_id, slug));`);
    this.addSql(`create index config_workspace on config (workspace_id);`);
    // One live default per workspace.
    this.addSql(`create unique index config_one_default on config (workspace_id) where is_default = 1 and deleted_at is null;`);

    this.addSql(`create table config_version (
      id uuid primary key,
      config_id uuid not null references config(id) on delete cascade,
      version int not null,
      config jsonb not null,
      format varchar(16) not null default 'json',
      created_by varchar(255) null,
      created_at timestamptz not null default now(),
      unique (config_id, version));`);

    // Keys: `<workspace_id>:<slug>` and `<id>` (how requests name a saved config). A slug or
    // workspace that left the row, a deleted row and a soft-deleted row are deletes.
    this.addSql(`create or replace function config_resource_change() returns trigger language plpgsql as $$
      declare
        kept text[] := '{}';
        gone text[] := '{}';
        k text;
        row_id uuid;
        act varchar(16);
      begin
        if tg_op = 'DELETE' then
          row_id := old.id;
          gone := array[old.workspace_id::text || ':' || old.slug, old.id::text];
        else
          row_id := new.id;
          if new.deleted_at is not null then
            gone := array[new.workspace_id::text || ':' || new.slug, new.id::text];
          else
            kept := array[new.workspace_id::text || ':' || new.slug, new.id::text];
          end if;
          if tg_op = 'UPDATE' then
            gone := gone || array[old.workspace_id::text || ':' || old.slug, old.id::text];
          end if;
        end if;
        for k in select distinct x from unnest(kept || gone) as x where x is not null order by 1 loop
          act := case when k = any(kept) then 'upsert' else 'delete' end;
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('config', k, row_id, act);
        end loop;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger config_resource_change after insert or update or delete on config
      for each row execute function config_resource_change();`);
  }
}
