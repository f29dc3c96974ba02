import { Migration } from '@mikro-orm/migrations';

// A user key acts with its scopes bounded by its user's roles (src/domain/roles.ts), so a role or
// membership change changes what the key may do on the data plane without touching the api_key
// row: log an upsert for each of that user's keys so workers re-resolve them at once (Watch).
export class Migration0005RoleChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function user_keys_resource_change(p_user uuid, p_workspace uuid) returns void language plpgsql as $$
      declare k record;
      begin
        for k in select id, key_hash, previous_key_hash from api_key
                  where user_id = p_user and deleted_at is null and (p_workspace is null or workspace_id = p_workspace) loop
          insert into resource_change (resource_type, resource_key, resource_id, action) values ('api_key', k.key_hash, k.id, 'upsert');
          if k.previous_key_hash is not null then
            insert into resource_change (resource_type, resource_key, resource_id, action) values ('api_key', k.previous_key_hash, k.id, 'upsert');
          end if;
        end loop;
        perform pg_notify('resource_change', '');
      end $$;`);
    this.addSql(`create or replace function app_user_role_change() returns trigger language plpgsql as $$
      begin
        if new.role is distinct from old.role then perform user_keys_resource_change(new.id, null); end if;
        return null;
      end $$;`);
    this.addSql(`create trigger app_user_role_change after update on app_user
      for each row execute function app_user_role_change();`);
    this.addSql(`create or replace function workspace_member_change() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          perform user_keys_resource_change(old.user_id, old.workspace_id);
        elsif tg_op = 'INSERT' or new.role is distinct from old.role then
          perform user_keys_resource_change(new.user_id, new.workspace_id);
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger workspace_member_change after insert or update or delete on workspace_member
      for each row execute function workspace_member_change();`);
  }
}
