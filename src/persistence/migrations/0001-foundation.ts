import { Migration } from '@mikro-orm/migrations';

// Foundation tables (issue 2). Versions (revision) come from one PostgreSQL sequence so
// every control-plane replica hands workers the same numbers.
export class Migration0001Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create sequence if not exists resource_revision_seq;`);
    this.addSql(`create or replace function bump_revision() returns trigger language plpgsql as $$
      begin new.revision := nextval('resource_revision_seq'); return new; end $$;`);

    this.addSql(`create table organisation (
      id uuid primary key,
      name varchar(255) not null,
      slug varchar(255) not null unique,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now());`);

    this.addSql(`create table workspace (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      slug varchar(255) not null unique,
      name varchar(255) not null,
      description text null,
      is_default boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now());`);
    this.addSql(`create unique index workspace_one_default on workspace (organisation_id) where is_default;`);

    this.addSql(`create table app_user (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      email varchar(320) not null,
      first_name varchar(255) null,
      last_name varchar(255) null,
      role varchar(16) not null check (role in ('owner','admin','member')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now());`);
    this.addSql(`create unique index app_user_org_email on app_user (organisation_id, lower(email));`);

    this.addSql(`create table api_key (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid null references workspace(id) on delete cascade,
      user_id uuid null references app_user(id) on delete cascade,
      type varchar(32) not null check (type in ('organisation-service','workspace-service','workspace-user')),
      name varchar(255) not null,
      description text null,
      key_hash char(64) not null unique,
      key_mask varchar(32) not null,
      status varchar(16) not null default 'active' check (status in ('active','exhausted','revoked')),
      scopes jsonb not null,
      rate_limits jsonb null,
      usage_limits jsonb null,
      defaults jsonb null,
      alert_emails jsonb null,
      expires_at timestamptz null,
      rotation_policy jsonb null,
      creation_mode varchar(16) not null default 'api',
      created_by varchar(255) null,
      revision bigint not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz null,
      check ((type = 'workspace-user') = (user_id is not null)),
      check ((type = 'organisation-service') = (workspace_id is null)));`);
    this.addSql(`create index api_key_org_ws on api_key (organisation_id, workspace_id) where deleted_at is null;`);
    this.addSql(`create trigger api_key_revision before insert or update on api_key
      for each row execute function bump_revision();`);

    this.addSql(`create table audit_event (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid null,
      actor_type varchar(16) not null,
      actor_id varchar(255) null,
      action varchar(128) not null,
      target_type varchar(64) not null,
      target_id varchar(255) null,
      ip varchar(64) null,
      user_agent varchar(512) null,
      request_details jsonb not null,
      created_at timestamptz not null default now());`);
    this.addSql(`create index audit_event_org_time on audit_event (organisation_id, created_at desc);`);

    this.addSql(`create table request_log (
      id uuid primary key,
      idempotency_id varchar(128) not null unique,
      request_id varchar(64) not null,
      attempt integer not null,
      trace_id varchar(255) not null,
      organisation_id uuid not null,
      workspace_id uuid null,
      api_key_id uuid null,
      provider varchar(64) not null,
      model varchar(255) null,
      endpoint varchar(64) not null,
      method varchar(16) not null,
      status integer not null,
      latency_ms integer not null,
      upstream_latency_ms integer not null,
      prompt_tokens integer not null,
      completion_tokens integer not null,
      total_tokens integer not null,
      is_stream boolean not null,
      error_code varchar(64) null,
      metadata jsonb null,
      started_at timestamptz not null,
      created_at timestamptz not null default now());`);
    this.addSql(`create index request_log_trace on request_log (trace_id);`);
    this.addSql(`create index request_log_org_time on request_log (organisation_id, started_at desc);`);
  }
}
