import { Migration } from '@mikro-orm/migrations';

// Request logs, log exports and feedback (issue 9; control-plane-schemas 2.13–2.14).
//
// request_log becomes a table partitioned by month on started_at (ARCHITECTURE.md Storage:
// "time-partitioned tables"): retention drops whole partitions instead of deleting rows, and a
// time-range query reads only the months it covers. Partitions are created ahead by the
// maintenance job and, for a record outside them (late or early clocks), on demand by
// request_log_ensure_partition() before the insert — there is no default partition, because a
// default partition holding rows of a month would make creating that month's partition fail.
//
// Idempotency across partitions: a unique index on a partitioned table must contain the partition
// key, so request_log itself could only be unique on (idempotency_id, started_at), which would
// trust every resend to carry the same started_at. Instead the ids live in request_log_dedup
// (unique on idempotency_id alone, unpartitioned): the insert claims ids there first and stores
// only the logs whose id it claimed, in the same statement (insert-logs.ts), so a resent batch is
// stored once whatever its timestamps. Retention deletes the dedup rows of dropped months.
// (Lookups by id alone use the primary key (id, started_at): id leads it.)
export class Migration0011RequestLogs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table request_log_partitioned (
      id uuid not null,
      idempotency_id varchar(128) not null,
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
      created_at timestamptz not null default now(),
      user_id varchar(255) null,
      cost double precision not null default 0,
      cost_currency varchar(8) not null default 'USD',
      cache_status varchar(32) null,
      retry_count integer not null default 0,
      target_path varchar(255) null,
      guardrail_verdicts jsonb null,
      request_url text null,
      request_headers jsonb null,
      request_body text null,
      response_headers jsonb null,
      response_body text null,
      bodies_truncated boolean not null default false,
      is_proxy boolean not null default false,
      config_id varchar(255) null,
      virtual_key varchar(255) null,
      prompt_slug varchar(255) null,
      span_id varchar(255) null,
      span_name varchar(255) null,
      mode varchar(32) null,
      source varchar(16) not null default 'gateway',
      primary key (id, started_at)
    ) partition by range (started_at);`);

    this.addSql(`create table request_log_dedup (
      idempotency_id varchar(128) primary key,
      started_at timestamptz not null);`);
    this.addSql(`create index request_log_dedup_time on request_log_dedup (started_at);`);

    // Creates the month's partition of `at_time` (UTC months) unless it exists; safe when two
    // sessions race (the loser's duplicate error is swallowed). Returns the partition's name.
    this.addSql(`create or replace function request_log_ensure_partition(at_time timestamptz) returns text
      language plpgsql as $$
      declare
        lo timestamptz := date_trunc('month', at_time at time zone 'UTC') at time zone 'UTC';
        hi timestamptz := (date_trunc('month', at_time at time zone 'UTC') + interval '1 month') at time zone 'UTC';
        part text := 'request_log_p' || to_char(at_time at time zone 'UTC', 'YYYYMM');
      begin
        if to_regclass(part) is null then
          begin
            execute format('create table %I partition of request_log for values from (%L) to (%L)', part, lo, hi);
          exception when duplicate_table or unique_violation then
            null;
          end;
        end if;
        return part;
      end $$;`);

    // Rows stored before partitioning move over; the old table goes.
    this.addSql(`alter table request_log rename to request_log_unpartitioned;`);
    this.addSql(`alter table request_log_partitioned rename to request_log;`);
    this.addSql(`select request_log_ensure_partition(m) from (
      select distinct date_trunc('month', started_at at time zone 'UTC') at time zone 'UTC' as m from request_log_unpartitioned
      union select now() union select now() + interval '1 month') months;`);
    this.addSql(`insert into request_log (id, idempotency_id, request_id, attempt, trace_id, organisation_id, workspace_id, api_key_id,
        provider, model, endpoint, method, status, latency_ms, upstream_latency_ms, prompt_tokens, completion_tokens, total_tokens,
        is_stream, error_code, metadata, started_at, created_at, user_id)
      select id, idempotency_id, request_id, attempt, trace_id, organisation_id, workspace_id, api_key_id,
        provider, model, endpoint, method, status, latency_ms, upstream_latency_ms, prompt_tokens, completion_tokens, total_tokens,
        is_stream, error_code, metadata, started_at, created_at, left(metadata ->> '_user', 255)
      from request_log_unpartitioned;`);
    this.addSql(`insert into request_log_dedup (idempotency_id, started_at) select idempotency_id, started_at from request_log_unpartitioned on conflict do nothing;`);
    this.addSql(`drop table request_log_unpartitioned;`);

    // Paging and analytics per workspace over a time range; trace lookups (feedback, filters); key and user groupings.
    this.addSql(`create index request_log_ws_time on request_log (workspace_id, started_at desc, id desc);`);
    this.addSql(`create index request_log_org_time on request_log (organisation_id, started_at desc, id desc);`);
    this.addSql(`create index request_log_trace on request_log (trace_id);`);
    // Key usage windows (0003, api-keys/current-usage.ts).
    this.addSql(`create index request_log_key_time on request_log (api_key_id, started_at);`);
    // The few logs analytics picks out of a range by flag: retried, fallback and failed requests.
    this.addSql(`create index request_log_retried on request_log (workspace_id, started_at) where retry_count > 0;`);
    this.addSql(`create index request_log_fallback on request_log (workspace_id, started_at) where mode = 'fallback';`);
    this.addSql(`create index request_log_errors on request_log (workspace_id, started_at) where status >= 400;`);
    this.addSql(`create index request_log_metadata on request_log using gin (metadata jsonb_path_ops);`);

    this.addSql(`create table feedback (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      trace_id varchar(255) not null,
      value smallint not null check (value between -10 and 10),
      weight double precision not null default 1 check (weight >= 0 and weight <= 1),
      metadata jsonb null,
      api_key_id uuid null,
      user_id uuid null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now());`);
    this.addSql(`create index feedback_ws_trace on feedback (workspace_id, trace_id);`);
    this.addSql(`create index feedback_ws_time on feedback (workspace_id, created_at);`);

    this.addSql(`create table log_export (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid not null references workspace(id) on delete cascade,
      filters jsonb not null,
      requested_data jsonb not null,
      status varchar(16) not null default 'draft' check (status in ('draft', 'in_progress', 'success', 'failed', 'stopped')),
      description text not null default '',
      created_by uuid not null,
      total integer not null default 0,
      processed integer not null default 0,
      file_path text null,
      file_bytes bigint null,
      error text null,
      started_at timestamptz null,
      finished_at timestamptz null,
      lease_until timestamptz null,
      archived_at timestamptz null,
      created_at timestamptz not null default now(),
      last_updated_at timestamptz not null default now());`);
    this.addSql(`create index log_export_ws on log_export (workspace_id, created_at) where archived_at is null;`);
    // Fields a workspace may not export and that its stored logs leave out (gateway-spec, Errors and
    // GET /v1/logs/exports/field-restrictions). A row without workspace applies to every workspace.
    this.addSql(`create table log_field_restriction (
      id uuid primary key,
      organisation_id uuid not null references organisation(id) on delete cascade,
      workspace_id uuid null references workspace(id) on delete cascade,
      denied_fields jsonb not null default '[]',
      updated_at timestamptz not null default now());`);
    this.addSql(`create unique index log_field_restriction_scope on log_field_restriction (organisation_id, coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid));`);
    this.addSql(`create index log_export_runnable on log_export (started_at) where status = 'in_progress' and archived_at is null;`);
  }
}
