import { Migration } from '@mikro-orm/migrations';

// Issue 8 item 4: every request's cost (USD cents, from the pricing catalogue or a custom price;
// null when the model has no price) and the cached prompt tokens it was priced with.
export class Migration0013RequestCost extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table request_log add column cost_cents numeric(24, 10) null;`);
    this.addSql(`alter table request_log add column cached_prompt_tokens integer null;`);
  }
}
