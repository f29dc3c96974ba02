import { Migration } from '@mikro-orm/migrations';

// Integrations, providers and virtual keys (issue 4 items 3-4; control-plane-schemas 2.4-2.6).
// Secrets are stored sealed by the SecretBox (AES-256-GCM), never in clear.
export class Migration0008Integrations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table integration (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid null references workspace(id) on delete cascade,
      name varchar(255) not null,
      slug varchar(255) not null,
      ai_provider_id varchar(64) not null,
      description text null,
      status varchar(16) not null default 'active',
      key_sealed text null,
      key_mask varchar(64) null,
      configurations jsonb not null default '{}',
      secrets_sealed text null,
      secret_mappings jsonb null,
      pricing_adjustments jsonb null,
      allow_all_models boolean not null default true,
      global_workspace_access jsonb null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug));`);

    // Models an integration offers: catalogue models switched on or off, and custom ones.
    this.addSql(`create table integration_model (
      integration_id uuid not null references integration(id) on delete cascade,
      slug varchar(255) not null,
      name varchar(255) null,
      enabled boolean not null,
      is_custom boolean not null default false,
      is_finetune boolean not null default false,
      base_model_slug varchar(255) null,
      custom_host varchar(2048) null,
      custom_headers jsonb null,
      pricing_config jsonb null,
      primary key (integration_id, slug));`);

    // Which workspaces may use an organisation integration, with their limits.
    this.addSql(`create table integration_workspace (
      integration_id uuid not null references integration(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      enabled boolean not null,
      usage_limits jsonb null,
      rate_limits jsonb null,
      reset_usage_at timestamptz null,
      primary key (integration_id, workspace_id));`);

    // Providers (kind 'provider', built on an integration) and legacy virtual keys (kind
    // 'virtual_key', their own provider and key) share one slug space per workspace: the data
    // plane addresses both as `@slug` / x-gateway-virtual-key (gateway-spec, request headers).
    this.addSql(`create table provider (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      kind varchar(16) not null check (kind in ('provider','virtual_key')),
      integration_id uuid null references integration(id) on delete cascade,
      ai_provider_id varchar(64) null,
      name varchar(255) not null,
      slug varchar(255) not null,
      note text null,
      status varchar(16) not null default 'active',
      usage_limits jsonb null,
      rate_limits jsonb null,
      expires_at timestamptz null,
      reset_usage numeric null,
      key_sealed text null,
      key_mask varchar(64) null,
      model_config jsonb null,
      secret_mappings jsonb null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check ((kind = 'provider') = (integration_id is not null)),
      unique (workspace_id, slug));`);
    this.addSql(`create index provider_integration on provider (integration_id);`);

    // Keys `<workspace_id>:<slug>` reach 36 + 1 + 255 characters (slugs up to 255, spec Limits):
    // widen the shared column (0004 made it 255).
    this.addSql(`alter table resource_change alter column resource_key type varchar(320);`);

    // Workers resolve `provider` by `<workspace_id>:<slug>` (virtual keys too: same namespace).
    this.addSql(`create or replace function provider_resource_change() returns trigger language plpgsql as $$
      declare
        kept text[] := '{}';
        gone text[] := '{}';
        k text;
        row_id uuid;
        act varchar(16);
      begin
        if tg_op = 'DELETE' then
          row_id := old.id;
          gone := array[old.workspace_id::text || ':' || old.slug];
        else
          row_id := new.id;
          kept := array[new.workspace_id::text || ':' || new.slug];
          if tg_op = 'UPDATE' then
            gone := array[old.workspace_id::text || ':' || old.slug];
          end if;
        end if;
        for k in select distinct x from unnest(kept || gone) as x where x is not null order by 1 loop
          act := case when k = any(kept) then 'upsert' else 'delete' end;
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('provider', k, row_id, act);
        end loop;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger provider_resource_change after insert or update or delete on provider
      for each row execute function provider_resource_change();`);

    // A change to an integration (credential rotation, configuration, models, workspace access
    // or limits) changes what every provider built on it resolves to: each gets an upsert.
    // Deleting the integration cascades to its providers, whose own trigger writes the deletes.
    this.addSql(`create or replace function integration_providers_changed(iid uuid) returns void language plpgsql as $$
      begin
        -- Gone (a cascade from the integration's delete): its providers' own deletes say it.
        if not exists (select 1 from integration where id = iid) then return; end if;
        insert into resource_change (resource_type, resource_key, resource_id, action)
          select 'provider', p.workspace_id::text || ':' || p.slug, p.id, 'upsert'
          from provider p where p.integration_id = iid order by p.workspace_id, p.slug;
        perform pg_notify('resource_change', '');
      end $$;`);
    this.addSql(`create or replace function integration_resource_change() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then perform integration_providers_changed(new.id); end if;
        return null;
      end $$;`);
    this.addSql(`create trigger integration_resource_change after update on integration
      for each row execute function integration_resource_change();`);
    this.addSql(`create or replace function integration_child_resource_change() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          perform integration_providers_changed(old.integration_id);
        else
          perform integration_providers_changed(new.integration_id);
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger integration_model_resource_change after insert or update or delete on integration_model
      for each row execute function integration_child_resource_change();`);
    this.addSql(`create trigger integration_workspace_resource_change after insert or update or delete on integration_workspace
      for each row execute function integration_child_resource_change();`);
  }
}
