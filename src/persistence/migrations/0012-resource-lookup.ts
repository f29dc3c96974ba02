import { Migration } from '@mikro-orm/migrations';

// gRPC Resolve and Watch answer "what is the latest version of this (type, key)" for every
// resource workers hold (issue 5 item 1): an index makes it one lookup instead of a scan.
export class Migration0012ResourceLookup extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index resource_change_lookup on resource_change (resource_type, resource_key, version);`);
  }
}
