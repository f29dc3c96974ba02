// Prints the schema to graphql/schema.graphql; with --check, fails when the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from './schema.ts';

const file = fileURLToPath(new URL('./schema.graphql', import.meta.url));
const printed = `${printSchema(schema)}\n`;
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    /* missing counts as different */
  }
  if (committed !== printed) {
    console.error('graphql/schema.graphql is out of date: run `npm run schema:print` and commit it.');
    process.exit(1);
  }
  console.log('graphql/schema.graphql is up to date.');
} else {
  writeFileSync(file, printed);
  console.log(`wrote ${file}`);
}
