import { Migration } from '@mikro-orm/migrations';

// Workers hold a `workspace` resource (its slug, the organisation's block_inline_config, its
// default config): log a change for it whenever one of those may have changed (issue 5 item 1).
export class Migration0014WorkspaceChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function workspace_resource_change() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('workspace', old.id::text, old.id, 'delete');
        else
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('workspace', new.id::text, new.id, 'upsert');
        end if;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger workspace_resource_change after insert or update or delete on workspace
      for each row execute function workspace_resource_change();`);

    // The organisation's settings reach every workspace of it.
    this.addSql(`create or replace function organisation_settings_resource_change() returns trigger language plpgsql as $$
      begin
        if new.settings is distinct from old.settings then
          insert into resource_change (resource_type, resource_key, resource_id, action)
            select 'workspace', w.id::text, w.id, 'upsert' from workspace w where w.organisation_id = new.id order by w.id;
          perform pg_notify('resource_change', '');
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger organisation_settings_resource_change after update on organisation
      for each row execute function organisation_settings_resource_change();`);

    // A config becoming (or ceasing to be) the workspace default.
    this.addSql(`create or replace function config_default_resource_change() returns trigger language plpgsql as $$
      declare
        ws uuid;
      begin
        for ws in select distinct x from unnest(array[
            case when tg_op <> 'INSERT' and old.is_default = 1 then old.workspace_id end,
            case when tg_op <> 'DELETE' and new.is_default = 1 then new.workspace_id end,
            case when tg_op = 'UPDATE' and (old.is_default <> new.is_default or old.deleted_at is distinct from new.deleted_at) then new.workspace_id end]) as x
          where x is not null loop
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('workspace', ws::text, ws, 'upsert');
        end loop;
        perform pg_notify('resource_change', '');
        return null;
      end $$;`);
    this.addSql(`create trigger config_default_resource_change after insert or update or delete on config
      for each row execute function config_default_resource_change();`);
  }
}
