import { Migration } from '@mikro-orm/migrations';

// Issue 8 item 4: a request whose model has no price stores tokens and no cost (null rather than
// a zero that would read as free), and the cached prompt tokens it was priced with.
export class Migration0013RequestCost extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table request_log alter column cost drop not null, alter column cost drop default;`);
    this.addSql(`alter table request_log add column cached_prompt_tokens integer null;`);
  }
}
