// Import rules of the fixed top-level layout: see ../shared/ARCHITECTURE.md, "Top-level layout (fixed)"
// ("Enforce the import rules with a lint rule ..., not by memory"). Run with `npm run lint`
// (depcruise over src graphql workers test); every rule is severity "error", so any violation makes
// the command exit non-zero. test/lint/import-rules.test.ts proves each rule fires.
//
// Paths are matched relative to the directory depcruise runs in (the repo root), e.g. `src/domain/x.ts`.
// Every rule is written so that one bad import trips exactly one rule.

/** Dependency types that are not files of this repository: npm packages and Node builtins. */
const EXTERNAL = [
  'core',
  'npm',
  'npm-dev',
  'npm-optional',
  'npm-peer',
  'npm-bundled',
  'npm-no-pkg',
  'npm-unknown',
];

/** Packages that only run on Node (ARCHITECTURE.md: only workers/runtime/* touches Node APIs). */
const NODE_ONLY_PACKAGES =
  '(^|(^|/)node_modules/)(undici|@grpc/grpc-js|@grpc/proto-loader|ioredis|@mikro-orm/[^/]+|pg)(/|$)';

/** The code of the data plane that must run unchanged on Node and Deno. */
const PORTABLE_WORKERS = { path: '^workers/', pathNot: '^workers/runtime/' };

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'src-only-src',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)": src/ may import src/ only (plus npm packages and Node ' +
        'builtins); only the process entry points (src/entry/) may wire graphql/ and workers/.',
      from: { path: '^src/', pathNot: '^src/entry/' },
      to: { pathNot: '^(src|test)/', dependencyTypesNot: EXTERNAL },
    },
    {
      name: 'src-entry-only-src-graphql-workers',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)": the process entry points (src/entry/) may import src/ ' +
        'and wire graphql/ and workers/ - nothing else of the repository.',
      from: { path: '^src/entry/' },
      to: { pathNot: '^(src|graphql|workers|test)/', dependencyTypesNot: EXTERNAL },
    },
    {
      name: 'graphql-only-src-and-graphql',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)": graphql/ may import src/ (and itself) only - ' +
        'never workers/ (the data plane) or test/.',
      from: { path: '^graphql/' },
      to: { pathNot: '^(src|graphql|test)/', dependencyTypesNot: EXTERNAL },
    },
    {
      name: 'workers-only-workers-and-src',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)": workers/ may import the pure parts of src/ only - ' +
        'never graphql/ (the control plane) or anything else outside workers/ and src/.',
      from: { path: '^workers/' },
      to: { pathNot: '^(src|workers|test)/', dependencyTypesNot: EXTERNAL },
    },
    {
      name: 'workers-only-pure-src',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)": workers/ may import only the pure parts of src/ ' +
        '(src/domain: domain, errors, shared types) - never services, entities, the ORM, REST, gRPC, ' +
        'platform or entry points. Runtime adapters (workers/runtime/) have their own rule.',
      from: PORTABLE_WORKERS,
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'workers-runtime-no-control-plane',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)": workers/runtime/ may wire src/platform (Node/Deno ' +
        'infrastructure) besides src/domain, but never services, entities/ORM, REST or the gRPC server.',
      from: { path: '^workers/runtime/' },
      to: { path: '^src/(services|persistence|rest|grpc)/' },
    },
    {
      name: 'workers-no-node-builtins',
      severity: 'error',
      comment:
        'ARCHITECTURE.md: "Only workers/runtime/* touches Node- or Deno-specific APIs; the rest of ' +
        'workers/ uses web standards" - no Node builtins (node:* or bare fs, http, ...) outside workers/runtime/.',
      from: PORTABLE_WORKERS,
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'workers-no-node-only-packages',
      severity: 'error',
      comment:
        'ARCHITECTURE.md: "Only workers/runtime/* touches Node- or Deno-specific APIs" - undici, ' +
        '@grpc/grpc-js, @grpc/proto-loader, ioredis, @mikro-orm/* and pg only in workers/runtime/.',
      from: PORTABLE_WORKERS,
      to: { path: NODE_ONLY_PACKAGES, dependencyTypesNot: ['core'] },
    },
    {
      name: 'not-to-test',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)": test/ may import anything, but nothing in src/, ' +
        'graphql/ or workers/ may import test/.',
      from: { path: '^(src|graphql|workers)/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'ARCHITECTURE.md "Top-level layout (fixed)" gives a one-way layering (entry -> graphql/workers -> ' +
        'src); circular imports break it and make module initialisation order-dependent.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    moduleSystems: ['es6', 'cjs'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // node_modules is kept out of the cruise by doNotFollow (also skips it when gathering sources).
    // It must NOT go into `exclude`: that also drops the edges *to* packages, which would silently
    // disable workers-no-node-only-packages.
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: '^\\.data/' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
