import { Migration } from '@mikro-orm/migrations';

// Rate-limit and usage-limit policies (issue 4 item 6; control-plane-schemas 2.11, 2.12), the
// tracked usage of usage-limit policies per value key, and secret references (item 5; 2.17).
// Workers hold every active policy of an organisation as one `policy_set` keyed by the
// organisation id (src/services/policies/worker-resolver.ts): any policy write, and a reset of a
// tracked counter, logs a resource_change for that key.
export class Migration0009Policies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table rate_limit_policy (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      name varchar(255) null,
      target varchar(16) not null default 'llm' check (target in ('llm','mcp_tools')),
      conditions jsonb not null,
      group_by jsonb not null,
      type varchar(16) not null check (type in ('requests','tokens')),
      unit varchar(8) not null check (unit in ('rpm','rph','rpd')),
      value numeric not null check (value >= 0),
      status varchar(16) not null default 'active' check (status in ('active','archived')),
      created_by varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now());`);
    this.addSql(`create index rate_limit_policy_org on rate_limit_policy (organisation_id, status);`);
    this.addSql(`create index rate_limit_policy_workspace on rate_limit_policy (workspace_id);`);

    this.addSql(`create table usage_limit_policy (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      name varchar(255) null,
      conditions jsonb not null,
      group_by jsonb not null,
      type varchar(16) not null check (type in ('cost','tokens','requests')),
      credit_limit numeric not null check (credit_limit >= 0),
      alert_threshold numeric null check (alert_threshold >= 0 and alert_threshold < credit_limit),
      periodic_reset varchar(16) null check (periodic_reset in ('monthly','weekly')),
      periodic_reset_days int null check (periodic_reset_days between 1 and 365),
      next_usage_reset_at timestamptz null,
      last_reset_at timestamptz null,
      status varchar(16) not null default 'active' check (status in ('active','archived')),
      created_by varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (periodic_reset is null or periodic_reset_days is null));`);
    this.addSql(`create index usage_limit_policy_org on usage_limit_policy (organisation_id, status);`);
    this.addSql(`create index usage_limit_policy_workspace on usage_limit_policy (workspace_id);`);

    // One counter per (policy, value key), e.g. `api_key:<id>` or `metadata._user:alice`.
    // current_usage is accrued from usage reports; reset_at is when it was last zeroed by hand
    // (workers zero their shared counter when they see it move).
    this.addSql(`create table usage_limit_policy_entity (
      id uuid primary key,
      policy_id uuid not null references usage_limit_policy(id) on delete cascade,
      value_key varchar(1024) not null,
      current_usage numeric not null default 0,
      status varchar(16) not null default 'active' check (status in ('active','exhausted')),
      is_threshold_alerts_sent boolean not null default false,
      is_exhausted_alerts_sent boolean not null default false,
      reset_at timestamptz null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (policy_id, value_key));`);

    this.addSql(`create table secret_reference (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      name varchar(255) not null,
      slug varchar(255) not null,
      description varchar(1024) null,
      manager_type varchar(32) not null,
      auth_config_sealed text not null,
      secret_path varchar(1024) not null,
      secret_key varchar(255) null,
      allow_all_workspaces boolean not null default true,
      allowed_workspaces jsonb not null default '[]',
      tags jsonb null,
      status varchar(16) not null default 'ACTIVE',
      created_by varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug),
      check (not (allow_all_workspaces and jsonb_array_length(allowed_workspaces) > 0)));`);

    // policy_set: the organisation's whole set, so a worker refetches one payload per change.
    this.addSql(`create or replace function policy_set_resource_change() returns trigger language plpgsql as $$
      declare
        org uuid;
        row_id uuid;
      begin
        if tg_op = 'DELETE' then
          org := old.organisation_id; row_id := old.id;
        else
          org := new.organisation_id; row_id := new.id;
        end if;
        insert into resource_change (resource_type, resource_key, resource_id, action) values ('policy_set', org::text, row_id, 'upsert');
        if tg_op = 'UPDATE' and old.organisation_id <> new.organisation_id then
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('policy_set', old.organisation_id::text, row_id, 'upsert');
        end if;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger rate_limit_policy_resource_change after insert or update or delete on rate_limit_policy
      for each row execute function policy_set_resource_change();`);
    this.addSql(`create trigger usage_limit_policy_resource_change after insert or update or delete on usage_limit_policy
      for each row execute function policy_set_resource_change();`);

    // A counter reset by hand changes what workers must enforce; accrual (current_usage) does not.
    this.addSql(`create or replace function usage_limit_entity_resource_change() returns trigger language plpgsql as $$
      declare
        org uuid;
      begin
        select organisation_id into org from usage_limit_policy where id = new.policy_id;
        if org is not null then
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('policy_set', org::text, new.policy_id, 'upsert');
          perform pg_notify('resource_change', '');
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger usage_limit_policy_entity_resource_change after update of reset_at on usage_limit_policy_entity
      for each row when (old.reset_at is distinct from new.reset_at) execute function usage_limit_entity_resource_change();`);
  }
}
