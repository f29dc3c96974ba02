// Proves that the import rules of ARCHITECTURE.md ("Top-level layout (fixed)") are enforced:
// the project's real .dependency-cruiser.cjs is run over a small fixture tree that mirrors the
// layout (bad imports trip exactly the expected rules, allowed ones trip none), the CLI used by
// `npm run lint` exits non-zero on that tree, and the real tree is clean.
//
// Fixtures live under .data/ (git-ignored, excluded from tsc and from the lint), so a concurrent
// `npm run lint` or `tsc` never sees them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const configFile = join(repoRoot, '.dependency-cruiser.cjs');
const tsConfigFile = join(repoRoot, 'tsconfig.json');
const depcruiseBin = join(repoRoot, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const LINTED = ['src', 'graphql', 'workers', 'test'];

/** Fixture files: path -> import specifiers (each becomes one `import ... from`). */
const FIXTURE: Record<string, string[]> = {
  // --- allowed ---
  'src/domain/ok.ts': [],
  'src/platform/p.ts': ['../domain/ok.ts', 'node:fs', 'ioredis'],
  'src/services/y.ts': ['../domain/ok.ts', '../persistence/orm.ts', 'zod'],
  'src/persistence/orm.ts': ['@mikro-orm/core', 'pg'],
  'src/entry/e.ts': ['../../workers/h.ts', '../../workers/runtime/r.ts', '../../graphql/ok.ts', '../services/y.ts', 'node:http'],
  'graphql/ok.ts': ['../src/services/y.ts', '../src/domain/ok.ts', './b.ts', 'graphql'],
  'graphql/b.ts': [],
  'workers/h.ts': ['../src/domain/ok.ts', './b.ts'],
  'workers/b.ts': [],
  'workers/runtime/r.ts': ['../../src/platform/p.ts', '../../src/domain/ok.ts', '../h.ts', 'undici', 'node:fs', 'http', '@grpc/grpc-js'],
  'test/t.ts': ['../src/services/y.ts', '../graphql/a.ts', '../workers/x.ts', '../workers/runtime/bad.ts', 'node:fs'],
  'test/helper.ts': [],
  // --- forbidden ---
  'workers/x.ts': ['../src/services/y.ts'],
  'workers/g.ts': ['../src/platform/p.ts', '../src/entry/e.ts'],
  'workers/f.ts': ['../graphql/b.ts'],
  'workers/c.ts': ['node:fs'],
  'workers/d.ts': ['http'],
  'workers/u.ts': ['undici', '@mikro-orm/core'],
  'workers/runtime/bad.ts': ['../../src/persistence/orm.ts', '../../src/services/y.ts', '../../graphql/b.ts'],
  'graphql/a.ts': ['../workers/b.ts'],
  'graphql/t.ts': ['../test/helper.ts'],
  'src/domain/a.ts': ['../../graphql/b.ts'],
  'src/platform/w.ts': ['../../workers/b.ts'],
  'src/services/t.ts': ['../../test/helper.ts'],
  'src/entry/bad.ts': ['../../scripts/tool.ts'],
  'scripts/tool.ts': [],
  'src/domain/cycle-a.ts': ['./cycle-b.ts'],
  'src/domain/cycle-b.ts': ['./cycle-a.ts'],
};

/** Every violation the fixture must produce, as `rule: from -> to` (npm targets by package name). */
const EXPECTED = [
  'workers-only-pure-src: workers/x.ts -> src/services/y.ts',
  'workers-only-pure-src: workers/g.ts -> src/platform/p.ts',
  'workers-only-pure-src: workers/g.ts -> src/entry/e.ts',
  'workers-only-workers-and-src: workers/f.ts -> graphql/b.ts',
  'workers-no-node-builtins: workers/c.ts -> fs',
  'workers-no-node-builtins: workers/d.ts -> http',
  'workers-no-node-only-packages: workers/u.ts -> undici',
  'workers-no-node-only-packages: workers/u.ts -> @mikro-orm/core',
  'workers-runtime-no-control-plane: workers/runtime/bad.ts -> src/persistence/orm.ts',
  'workers-runtime-no-control-plane: workers/runtime/bad.ts -> src/services/y.ts',
  'workers-only-workers-and-src: workers/runtime/bad.ts -> graphql/b.ts',
  'graphql-only-src-and-graphql: graphql/a.ts -> workers/b.ts',
  'not-to-test: graphql/t.ts -> test/helper.ts',
  'src-only-src: src/domain/a.ts -> graphql/b.ts',
  'src-only-src: src/platform/w.ts -> workers/b.ts',
  'not-to-test: src/services/t.ts -> test/helper.ts',
  'src-entry-only-src-graphql-workers: src/entry/bad.ts -> scripts/tool.ts',
  // depcruise reports a cycle once (at its first module), not once per edge.
  'no-circular: src/domain/cycle-a.ts -> src/domain/cycle-b.ts',
].sort();

const ALLOWED_FILES = [
  'src/domain/ok.ts',
  'src/platform/p.ts',
  'src/services/y.ts',
  'src/persistence/orm.ts',
  'src/entry/e.ts',
  'graphql/ok.ts',
  'workers/h.ts',
  'workers/runtime/r.ts',
  'test/t.ts',
];

/** `node_modules/.../undici/index.js` -> `undici`, so expectations don't depend on package layout. */
function target(to: string): string {
  const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(to);
  return match?.[1] ?? to;
}

function describeViolation(v: IViolation): string {
  return `${v.rule.name}: ${v.from} -> ${target(v.to)}`;
}

async function lint(baseDir: string): Promise<ICruiseResult> {
  const options: ICruiseOptions = await extractDepcruiseOptions(configFile);
  // The config names tsconfig.json relative to the working directory; pin it to the repo's.
  options.tsConfig = { fileName: tsConfigFile };
  options.baseDir = baseDir;
  const { output } = await cruise(LINTED, options, {}, { tsConfig: extractTSConfig(tsConfigFile) });
  if (typeof output === 'string') throw new Error(`unexpected string output: ${output}`);
  return output;
}

function errors(result: ICruiseResult): string[] {
  return result.summary.violations
    .filter((v) => v.rule.severity === 'error')
    .map(describeViolation)
    .sort();
}

describe('import rules (.dependency-cruiser.cjs, ARCHITECTURE.md "Top-level layout")', () => {
  let fixtureDir = '';

  beforeAll(() => {
    const dataDir = join(repoRoot, '.data');
    mkdirSync(dataDir, { recursive: true });
    fixtureDir = mkdtempSync(join(dataDir, 'lint-fixtures-'));
    for (const [file, imports] of Object.entries(FIXTURE)) {
      const path = join(fixtureDir, file);
      mkdirSync(dirname(path), { recursive: true });
      const body = imports.map((spec, i) => `import * as m${i} from '${spec}';\n`).join('');
      const use = imports.length > 0 ? `export const uses = [${imports.map((_, i) => `m${i}`).join(', ')}];\n` : '';
      writeFileSync(path, `${body}${use}export const name = '${file}';\n`);
    }
    // The CLI reads tsconfig.json relative to its working directory.
    copyFileSync(tsConfigFile, join(fixtureDir, 'tsconfig.json'));
  });

  afterAll(() => {
    if (fixtureDir) rmSync(fixtureDir, { recursive: true, force: true });
  });

  it('every rule in the config has severity error and a comment citing ARCHITECTURE.md', async () => {
    const options = await extractDepcruiseOptions(configFile);
    const rules = options.ruleSet?.forbidden ?? [];
    expect(rules.map((r) => r.name).sort()).toEqual(
      [...new Set(EXPECTED.map((e) => e.split(':')[0]))].sort(),
    );
    for (const rule of rules) {
      expect(rule.severity, rule.name).toBe('error');
      expect(rule.comment, rule.name).toMatch(/ARCHITECTURE\.md/);
    }
  });

  it('flags exactly the forbidden imports of the fixture tree, with the expected rules', async () => {
    const result = await lint(fixtureDir);
    // Sanity: everything resolved (so a rule can't pass just because a path was not found).
    const unresolved = result.modules.flatMap((m) =>
      m.dependencies.filter((d) => d.couldNotResolve).map((d) => `${m.source} -> ${d.module}`),
    );
    expect(unresolved).toEqual([]);
    expect(errors(result)).toEqual(EXPECTED);
    expect(result.summary.error).toBe(EXPECTED.length);
  });

  it('allowed imports (entry wiring, runtime adapters, graphql -> src, test -> anything) trip no rule', async () => {
    const result = await lint(fixtureDir);
    const fromAllowed = result.summary.violations.filter((v) => ALLOWED_FILES.includes(v.from));
    expect(fromAllowed.map(describeViolation)).toEqual([]);
  });

  it('the depcruise CLI (as run by `npm run lint`) exits non-zero on the fixture tree', () => {
    const run = spawnSync(process.execPath, [depcruiseBin, '--config', configFile, ...LINTED], {
      cwd: fixtureDir,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).not.toBe(0);
    const output = `${run.stdout}\n${run.stderr}`;
    for (const rule of new Set(EXPECTED.map((e) => e.split(':')[0]))) expect(output).toContain(rule);
  });

  it('the real tree (src graphql workers test) has no error-level violations', async () => {
    const result = await lint(repoRoot);
    expect(result.summary.totalCruised).toBeGreaterThan(50);
    expect(errors(result)).toEqual([]);
  });
});
