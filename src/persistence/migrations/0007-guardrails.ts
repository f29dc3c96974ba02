import { Migration } from '@mikro-orm/migrations';

// Guardrails (issue 4, item 2; control-plane-schemas 2.3): saved checks + actions with versions,
// workspace guardrails (workspace_id set) and organisation guardrails (workspace_id null);
// organisation defaults (input/output guardrails applied to every workspace) and the workspaces
// excluded from them (gateway-spec, "Other control-plane operations").
// Every change is logged in resource_change so workers can be told (issue 5).
export class Migration0007Guardrails extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table guardrail (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid null references workspace(id) on delete cascade,
      name varchar(255) not null,
      slug varchar(255) not null,
      status varchar(16) not null default 'active' check (status in ('active','archived')),
      checks jsonb not null,
      actions jsonb not null,
      current_version_id uuid null,
      owner_id varchar(255) not null,
      updated_by varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz null,
      unique (organisation_id, slug));`);
    this.addSql(`create index guardrail_workspace on guardrail (workspace_id);`);

    this.addSql(`create table guardrail_version (
      id uuid primary key,
      guardrail_id uuid not null references guardrail(id) on delete cascade,
      version int not null,
      name varchar(255) not null,
      checks jsonb not null,
      actions jsonb not null,
      created_by varchar(255) null,
      created_at timestamptz not null default now(),
      unique (guardrail_id, version));`);

    // Organisation defaults: ordered guardrail ids (organisation guardrails only, checked on write).
    this.addSql(`create table organisation_guardrail_defaults (
      organisation_id uuid primary key references organisation(id) on delete cascade,
      input_guardrails jsonb not null default '[]',
      output_guardrails jsonb not null default '[]',
      updated_by varchar(255) null,
      updated_at timestamptz not null default now());`);

    // A workspace excluded from the organisation's default input or output guardrails.
    this.addSql(`create table guardrail_workspace_exclusion (
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      direction varchar(8) not null check (direction in ('input','output')),
      created_by varchar(255) null,
      created_at timestamptz not null default now(),
      primary key (workspace_id, direction));`);
    this.addSql(`create index guardrail_workspace_exclusion_org on guardrail_workspace_exclusion (organisation_id, direction);`);

    // Guardrail keys: `<id>` and `<workspace_id, or organisation_id for an organisation
    // guardrail>:<slug>` (a config in workspace W naming slug S is looked up as `W:S`, then
    // `<org>:S`). A slug or owner that left the row, a deleted row, a soft-deleted row and an
    // archived one are deletes.
    this.addSql(`create or replace function guardrail_resource_change() returns trigger language plpgsql as $$
      declare
        kept text[] := '{}';
        gone text[] := '{}';
        k text;
        row_id uuid;
        act varchar(16);
      begin
        if tg_op = 'DELETE' then
          row_id := old.id;
          gone := array[coalesce(old.workspace_id, old.organisation_id)::text || ':' || old.slug, old.id::text];
        else
          row_id := new.id;
          if new.deleted_at is not null or new.status <> 'active' then
            gone := array[coalesce(new.workspace_id, new.organisation_id)::text || ':' || new.slug, new.id::text];
          else
            kept := array[coalesce(new.workspace_id, new.organisation_id)::text || ':' || new.slug, new.id::text];
          end if;
          if tg_op = 'UPDATE' then
            gone := gone || array[coalesce(old.workspace_id, old.organisation_id)::text || ':' || old.slug, old.id::text];
          end if;
        end if;
        for k in select distinct x from unnest(kept || gone) as x where x is not null order by 1 loop
          act := case when k = any(kept) then 'upsert' else 'delete' end;
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('guardrail', k, row_id, act);
        end loop;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger guardrail_resource_change after insert or update or delete on guardrail
      for each row execute function guardrail_resource_change();`);

    // `guardrail_policy`, keyed by workspace id: which organisation defaults apply to the
    // workspace. A change of the defaults touches every workspace of the organisation; an
    // exclusion touches its workspace.
    this.addSql(`create or replace function guardrail_defaults_resource_change() returns trigger language plpgsql as $$
      declare
        org uuid;
      begin
        org := case when tg_op = 'DELETE' then old.organisation_id else new.organisation_id end;
        insert into resource_change (resource_type, resource_key, resource_id, action)
          select 'guardrail_policy', w.id::text, w.id, 'upsert' from workspace w where w.organisation_id = org order by w.id;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger guardrail_defaults_resource_change after insert or update or delete on organisation_guardrail_defaults
      for each row execute function guardrail_defaults_resource_change();`);

    this.addSql(`create or replace function guardrail_exclusion_resource_change() returns trigger language plpgsql as $$
      declare
        ws uuid;
      begin
        ws := case when tg_op = 'DELETE' then old.workspace_id else new.workspace_id end;
        -- A cascade from a deleted workspace: nothing left to describe.
        if exists (select 1 from workspace where id = ws) then
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('guardrail_policy', ws::text, ws, 'upsert');
          perform pg_notify('resource_change', '');
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger guardrail_exclusion_resource_change after insert or update or delete on guardrail_workspace_exclusion
      for each row execute function guardrail_exclusion_resource_change();`);
  }
}
