import { Migration } from '@mikro-orm/migrations';

// Tenancy (issue 3): workspace settings and membership, invites, key rotation, and an
// append-only audit log.
export class Migration0002Tenancy extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table organisation add column settings jsonb not null default '{}';`);

    this.addSql(`alter table workspace
      add column defaults jsonb not null default '{}',
      add column settings jsonb not null default '{}',
      add column usage_limits jsonb null,
      add column rate_limits jsonb null,
      add column status varchar(16) not null default 'active' check (status in ('active','archived'));`);

    this.addSql(`create table workspace_member (
      id uuid primary key,
      workspace_id uuid not null references workspace(id) on delete cascade,
      user_id uuid not null references app_user(id) on delete cascade,
      role varchar(16) not null check (role in ('admin','manager','member')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, user_id));`);
    this.addSql(`create index workspace_member_user on workspace_member (user_id);`);

    this.addSql(`create table invite (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      email varchar(320) not null,
      role varchar(16) not null check (role in ('admin','member')),
      workspaces jsonb not null,
      workspace_api_key_scopes jsonb null,
      token_hash char(64) not null unique,
      status varchar(16) not null default 'pending' check (status in ('pending','cancelled','accepted','expired')),
      expires_at timestamptz not null,
      accepted_at timestamptz null,
      accepted_user_id uuid null,
      invited_by varchar(255) null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now());`);
    this.addSql(`create unique index invite_one_pending on invite (organisation_id, lower(email)) where status = 'pending';`);

    // Personal organisation keys for organisation owners and admins (`/v1/api-keys/organisation/user`).
    this.addSql(`alter table api_key drop constraint api_key_type_check, drop constraint api_key_check, drop constraint api_key_check1;`);
    this.addSql(`alter table api_key
      add constraint api_key_type_check check (type in ('organisation-service','organisation-user','workspace-service','workspace-user')),
      add constraint api_key_user_check check ((type in ('workspace-user','organisation-user')) = (user_id is not null)),
      add constraint api_key_workspace_check check ((type in ('organisation-service','organisation-user')) = (workspace_id is null));`);

    // Rotation: the previous secret stays valid until previous_key_expires_at, then never again.
    this.addSql(`alter table api_key
      add column previous_key_hash char(64) null,
      add column previous_key_expires_at timestamptz null,
      add column last_rotated_at timestamptz null;`);
    this.addSql(`create unique index api_key_previous_hash on api_key (previous_key_hash) where previous_key_hash is not null;`);

    this.addSql(`alter table audit_event
      add column method varchar(16) null,
      add column uri varchar(2048) null,
      add column user_id uuid null,
      add column response_status_code integer not null default 200;`);
    this.addSql(`create index audit_event_org_action on audit_event (organisation_id, action, created_at desc);`);
    // Append-only: no route, mutation or service may change or remove a record.
    this.addSql(`create or replace function audit_event_append_only() returns trigger language plpgsql as $$
      begin raise exception 'audit_event is append-only'; end $$;`);
    this.addSql(`create trigger audit_event_no_update before update or delete on audit_event
      for each row execute function audit_event_append_only();`);
  }
}
