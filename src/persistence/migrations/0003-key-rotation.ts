import { Migration } from '@mikro-orm/migrations';

// Scheduled key rotation (issue 3, item 2): the new secret a scheduled rotation issues is kept,
// sealed (src/platform/secret-box.ts), until the key's owner claims it once; then it is cleared.
export class Migration0003KeyRotation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table api_key
      add column pending_key_ciphertext text null,
      add column pending_key_mask varchar(32) null,
      add column pending_key_created_at timestamptz null;`);
    // The earlier job only marked keys as due; rotation is real now and the mark means nothing.
    this.addSql(`update api_key set rotation_policy = rotation_policy - 'rotation_due_at' where rotation_policy -> 'rotation_due_at' is not null;`);
    // current_usage sums a key's request log since its last reset.
    this.addSql(`create index request_log_key_time on request_log (api_key_id, started_at);`);
  }
}
