import { Migration } from '@mikro-orm/migrations';

// Issue 4, items 7 and 8: deployments (control-plane-schemas 2.19, draft; gateway-spec "Policies,
// guardrails, configs, deployments") and the MCP registry (control-plane-schemas 2.18).
// MCP servers are what the later MCP gateway resolves (type `mcp_server`, key
// `<workspace_id>:<slug>`): every write that changes what a server resolves to is logged in
// resource_change (like 0006's configs) so workers hear about it.
export class Migration0010DeploymentsMcp extends Migration {
  override async up(): Promise<void> {
    // The bootstrap admin key holds every organisation-key scope (src/services/bootstrap): give
    // keys bootstrapped before these scopes existed the new ones too.
    for (const scope of ['deployments', 'mcp_integrations', 'mcp_servers'].flatMap((r) => ['create', 'read', 'update', 'delete', 'list'].map((a) => `${r}.${a}`))) {
      this.addSql(`update api_key set scopes = scopes || jsonb_build_array('${scope}') where creation_mode = 'bootstrap' and not jsonb_exists(scopes, '${scope}');`);
    }
    this.addSql(`create table deployment (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      name varchar(255) not null,
      slug varchar(50) not null,
      type varchar(16) not null default 'production' check (type in ('production','non_production')),
      status varchar(16) not null default 'active',
      source_type varchar(64) null,
      tags jsonb not null default '{}',
      deployment_config jsonb not null default '{}',
      auth_settings jsonb not null default '{}',
      is_default boolean not null default false,
      ch_db varchar(255) null,
      credentials_username varchar(255) null,
      credentials_password_sealed text null,
      owner_id varchar(255) null,
      updated_by varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug));`);
    this.addSql(`create unique index deployment_one_default on deployment (organisation_id) where is_default;`);

    this.addSql(`create table mcp_integration (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid null references workspace(id) on delete cascade,
      name varchar(255) not null,
      slug varchar(255) not null,
      description text null,
      url text not null,
      auth_type varchar(32) not null,
      transport varchar(16) not null,
      status varchar(16) not null default 'active',
      configurations jsonb null,
      configurations_sealed text null,
      secret_mappings jsonb not null default '[]',
      global_workspace_access jsonb null,
      server_name text null,
      server_version text null,
      protocol_version text null,
      capability_flags jsonb null,
      sync_status varchar(16) null,
      last_synced_at timestamptz null,
      sync_error text null,
      owner_id varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug));`);

    this.addSql(`create table mcp_integration_workspace (
      integration_id uuid not null references mcp_integration(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      enabled boolean not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (integration_id, workspace_id));`);

    this.addSql(`create table mcp_capability (
      id uuid primary key,
      integration_id uuid not null references mcp_integration(id) on delete cascade,
      type varchar(32) not null check (type in ('tool','prompt','resource','resource_template')),
      name varchar(255) not null,
      title text null,
      description text null,
      details jsonb not null default '{}',
      enabled boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (integration_id, type, name));`);

    this.addSql(`create table mcp_server (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      integration_id uuid not null references mcp_integration(id),
      name varchar(255) not null,
      slug varchar(50) not null,
      description varchar(500) null,
      status varchar(16) not null default 'active',
      default_user_access varchar(8) not null default 'allow' check (default_user_access in ('allow','deny')),
      owner_id varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug));`);
    this.addSql(`create index mcp_server_integration on mcp_server (integration_id);`);

    this.addSql(`create table mcp_server_capability (
      server_id uuid not null references mcp_server(id) on delete cascade,
      capability_id uuid not null references mcp_capability(id) on delete cascade,
      enabled boolean not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (server_id, capability_id));`);

    this.addSql(`create table mcp_server_user_access (
      server_id uuid not null references mcp_server(id) on delete cascade,
      user_id uuid not null references app_user(id) on delete cascade,
      enabled boolean not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (server_id, user_id));`);

    // A user's auth connection to a server (OAuth tokens or per-user headers), written by the MCP gateway.
    this.addSql(`create table mcp_server_connection (
      server_id uuid not null references mcp_server(id) on delete cascade,
      user_id uuid not null references app_user(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      connected boolean not null default true,
      credentials_sealed text null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (server_id, user_id));`);

    // Servers: the key `<workspace_id>:<slug>`; a key that left the row and a deleted row are deletes.
    this.addSql(`create or replace function mcp_server_resource_change() returns trigger language plpgsql as $$
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
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('mcp_server', k, row_id, act);
        end loop;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger mcp_server_resource_change after insert or update or delete on mcp_server
      for each row execute function mcp_server_resource_change();`);

    // What a server resolves to also depends on its integration (URL, auth, access), capabilities
    // and user access: a change there is an upsert of every server it reaches.
    this.addSql(`create or replace function mcp_server_touch(p_integration uuid, p_server uuid, p_workspace uuid) returns void language plpgsql as $$
      declare
        s record;
      begin
        for s in select id, workspace_id, slug from mcp_server
          where (p_integration is null or integration_id = p_integration)
            and (p_server is null or id = p_server)
            and (p_workspace is null or workspace_id = p_workspace)
          order by id loop
          insert into resource_change (resource_type, resource_key, resource_id, action)
            values ('mcp_server', s.workspace_id::text || ':' || s.slug, s.id, 'upsert');
        end loop;
        perform pg_notify('resource_change', '');
      end $$;`);
    this.addSql(`create or replace function mcp_related_resource_change() returns trigger language plpgsql as $$
      declare
        r record;
      begin
        if tg_op = 'DELETE' then r := old; else r := new; end if;
        case tg_table_name
          when 'mcp_integration' then perform mcp_server_touch(r.id, null, null);
          when 'mcp_integration_workspace' then perform mcp_server_touch(r.integration_id, null, r.workspace_id);
          when 'mcp_capability' then perform mcp_server_touch(r.integration_id, null, null);
          else perform mcp_server_touch(null, r.server_id, null);
        end case;
        return null;
      end $$;`);
    for (const table of ['mcp_integration', 'mcp_integration_workspace', 'mcp_capability', 'mcp_server_capability', 'mcp_server_user_access']) {
      this.addSql(`create trigger ${table}_resource_change after insert or update or delete on ${table}
        for each row execute function mcp_related_resource_change();`);
    }
  }
}
