// Structure of the container deployment: docker-compose.yml, Dockerfile and .dockerignore.
// These checks read the files as data (no Docker needed) and hold them to what the code
// expects: the services exist and wait for each other's health, the connection settings
// point at the right services and ports, the settings pass the processes' own config
// validation, and every command names a file that is in the repository and in the image.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadControlPlaneEnv, loadWorkerEnv } from '../src/platform/env.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const compose: Obj = parse(read('docker-compose.yml'));
const services: Obj = isObj(compose.services) ? compose.services : {};

function service(name: string): Obj {
  const s = services[name];
  if (!isObj(s)) throw new Error(`docker-compose.yml has no service "${name}"`);
  return s;
}

/** A service's environment as written (before interpolation), map or list form. */
function rawEnv(name: string): Record<string, string> {
  const env = service(name).environment;
  if (env === undefined || env === null) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const s = String(entry);
        const i = s.indexOf('=');
        return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
      }),
    );
  }
  if (isObj(env)) return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
  throw new Error(`service "${name}": environment must be a map or a list`);
}

/** Compose variable interpolation: $$, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}. */
function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (match, name?: string, colon?: string, op?: string, arg?: string, bare?: string) => {
      if (match === '$$') return '$';
      if (bare !== undefined) return vars[bare] ?? '';
      const v = vars[name ?? ''];
      const unset = colon === ':' ? v === undefined || v === '' : v === undefined;
      if (op === '-') return unset ? (arg ?? '') : (v ?? '');
      if (op === '?') {
        if (unset) throw new Error(`required variable ${name} is not set: ${arg}`);
        return v ?? '';
      }
      return v ?? '';
    });
}

/** What an operator must set on the host (GATEWAY_SECRET_KEY has no default: compose refuses to start without it). */
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
const REQUIRED_HOST_VARS = { GATEWAY_SECRET_KEY: SECRET_KEY };

/** A service's environment as the container sees it, given the host's variables. */
const env = (name: string, vars: Record<string, string | undefined> = REQUIRED_HOST_VARS) =>
  Object.fromEntries(Object.entries(rawEnv(name)).map(([k, v]) => [k, interpolate(v, vars)]));

/** depends_on as service -> condition (list form means service_started). */
function dependsOn(name: string): Record<string, string> {
  const d = service(name).depends_on;
  if (d === undefined) return {};
  if (Array.isArray(d)) return Object.fromEntries(d.map((s) => [String(s), 'service_started']));
  if (isObj(d)) {
    return Object.fromEntries(
      Object.entries(d).map(([k, v]) => [k, isObj(v) && typeof v.condition === 'string' ? v.condition : 'service_started']),
    );
  }
  throw new Error(`service "${name}": depends_on must be a map or a list`);
}

/** The healthcheck's test command as one string, or undefined when there is none. */
function healthTest(name: string): string[] | undefined {
  const hc = service(name).healthcheck;
  if (!isObj(hc) || hc.disable === true) return undefined;
  if (typeof hc.test === 'string') return hc.test.trim() === '' ? undefined : ['CMD-SHELL', hc.test];
  if (Array.isArray(hc.test)) return hc.test.map(String);
  return undefined;
}

// ---- Dockerfile ------------------------------------------------------------------------

interface Instruction {
  op: string;
  args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const line of text.split(/\r?\n/)) {
    if (pending === '' && /^\s*#/.test(line)) continue;
    if (/^\s*#/.test(line)) continue; // comment lines inside a continuation are dropped too
    const continued = /\\\s*$/.test(line);
    pending += (pending ? ' ' : '') + line.replace(/\\\s*$/, '').trim();
    if (continued) continue;
    const m = /^(\w+)\s*(.*)$/.exec(pending.trim());
    if (m) out.push({ op: (m[1] ?? '').toUpperCase(), args: (m[2] ?? '').trim() });
    pending = '';
  }
  if (pending.trim()) throw new Error('Dockerfile ends inside a line continuation');
  return out;
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const instructions = (op: string) => dockerfile.filter((i) => i.op === op);

/** ENV KEY=value ... (and the legacy ENV KEY value form). */
function dockerEnv(): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const { args } of instructions('ENV')) {
    if (!args.includes('=')) {
      const [key, ...rest] = args.split(/\s+/);
      if (key) vars[key] = rest.join(' ');
      continue;
    }
    for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
      const key = m[1] ?? '';
      const raw = m[2] ?? '';
      vars[key] = /^["']/.test(raw) ? raw.slice(1, -1) : raw;
    }
  }
  return vars;
}

/** Exec-form (JSON array) or shell-form command split into words. */
function words(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed)) throw new Error(`not a JSON array: ${args}`);
    return parsed.map(String);
  }
  return trimmed.split(/\s+/).filter(Boolean);
}

function dockerCmd(): string[] {
  const cmds = instructions('CMD');
  const last = cmds[cmds.length - 1];
  if (!last) throw new Error('Dockerfile has no CMD');
  return words(last.args);
}

/** Sources of the COPY instructions that copy from the build context. */
function copiedPaths(): string[] {
  return instructions('COPY')
    .filter((i) => !/--from=/.test(i.args))
    .flatMap((i) => {
      const parts = words(i.args).filter((w) => !w.startsWith('--'));
      return parts.slice(0, -1); // the last word is the destination
    })
    .map((p) => normalize(p).replace(/\/$/, ''));
}

const dockerignore = read('.dockerignore')
  .split(/\r?\n/)
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

// ---- helpers over commands ---------------------------------------------------------------

/** What a service runs: its command, or the image's CMD when it is built from the Dockerfile. */
function effectiveCommand(name: string): string[] {
  const s = service(name);
  if (s.command !== undefined) return Array.isArray(s.command) ? s.command.map(String) : words(String(s.command));
  if (s.build !== undefined) return dockerCmd();
  return [];
}

const scriptFiles = (cmd: string[]) => cmd.filter((w) => /\.(?:[cm]?ts|[cm]?js)$/.test(w));

const builtServices = () => Object.keys(services).filter((n) => service(n).build !== undefined);

function hostPort(value: string): { host: string; port: number | undefined } | undefined {
  try {
    const u = new URL(value);
    if (!u.hostname) return undefined;
    return { host: u.hostname, port: u.port ? Number(u.port) : undefined };
  } catch {
    const m = /^([A-Za-z0-9._-]+):(\d{1,5})$/.exec(value);
    return m ? { host: m[1] ?? '', port: Number(m[2]) } : undefined;
  }
}

// ---- tests -----------------------------------------------------------------------------------

describe('docker-compose.yml', () => {
  it('defines postgres, redis, control-plane and worker', () => {
    expect(Object.keys(services).sort()).toEqual(['control-plane', 'postgres', 'redis', 'worker']);
    expect(String(service('postgres').image)).toMatch(/^postgres:16/);
    expect(String(service('redis').image)).toMatch(/^redis:7/);
    expect(service('control-plane').build).toBeDefined();
    expect(service('worker').build).toBeDefined();
  });

  it('keeps PostgreSQL data in a named volume', () => {
    const volumes = service('postgres').volumes;
    expect(Array.isArray(volumes)).toBe(true);
    const mounts = (volumes as unknown[]).map((v) =>
      isObj(v) ? { source: String(v.source), target: String(v.target) } : (() => {
        const [source = '', target = ''] = String(v).split(':');
        return { source, target };
      })(),
    );
    const data = mounts.find((m) => m.target === '/var/lib/postgresql/data');
    expect(data, 'postgres must mount /var/lib/postgresql/data').toBeDefined();
    expect(isObj(compose.volumes) && Object.hasOwn(compose.volumes, data?.source ?? '')).toBe(true);
  });

  it('runs three worker replicas and gives each a host port', () => {
    const deploy = service('worker').deploy;
    expect(isObj(deploy) && deploy.replicas).toBe(3);

    const workerPort = Number(env('worker').WORKER_PORT ?? 8787);
    const ports = (service('worker').ports as unknown[] | undefined) ?? [];
    expect(ports.length).toBeGreaterThan(0);
    const mapping = /^(?:[\d.]+:)?(\d+)(?:-(\d+))?:(\d+)(?:\/tcp)?$/.exec(String(ports[0]));
    expect(mapping, `unexpected port mapping ${String(ports[0])}`).not.toBeNull();
    const [, from = '', to, container = ''] = mapping ?? [];
    expect(Number(container)).toBe(workerPort);
    const hostPorts = (to ? Number(to) : Number(from)) - Number(from) + 1;
    expect(hostPorts, 'one host port per replica').toBeGreaterThanOrEqual(3);
  });

  it('publishes the control plane HTTP port', () => {
    const httpPort = Number(env('control-plane').CONTROL_PLANE_PORT ?? 8080);
    const ports = ((service('control-plane').ports as unknown[] | undefined) ?? []).map(String);
    expect(ports).toContain(`${httpPort}:${httpPort}`);
  });

  it('gives every service a healthcheck with a test command', () => {
    for (const name of Object.keys(services)) {
      const test = healthTest(name);
      expect(test, `${name} has no healthcheck`).toBeDefined();
      const [kind, ...cmd] = test ?? [];
      expect(['CMD', 'CMD-SHELL'], `${name}: healthcheck test must start with CMD or CMD-SHELL`).toContain(kind);
      expect(cmd.join(' ').trim(), `${name}: empty healthcheck command`).not.toBe('');
    }
    expect(healthTest('postgres')?.join(' ')).toMatch(/pg_isready .*-U gateway/);
    expect(healthTest('redis')?.join(' ')).toMatch(/redis-cli ping/);
  });

  it('health-checks the control plane and workers on their own HTTP port at /health', () => {
    const cases = [
      ['control-plane', Number(env('control-plane').CONTROL_PLANE_PORT ?? 8080)],
      ['worker', Number(env('worker').WORKER_PORT ?? 8787)],
    ] as const;
    for (const [name, port] of cases) {
      const cmd = (healthTest(name) ?? []).join(' ');
      expect(cmd, `${name} healthcheck`).toContain(`http://127.0.0.1:${port}/health`);
      // The slim image has no curl or wget: the check must use node's own fetch.
      expect(cmd).toMatch(/\bnode\b.*fetch\(/);
      expect(cmd).toMatch(/process\.exit\(r\.ok\s*\?\s*0\s*:\s*1\)/);
      expect(cmd).toMatch(/catch\(/);
    }
  });

  it('makes the control plane and workers wait for healthy dependencies', () => {
    expect(dependsOn('control-plane')).toEqual({ postgres: 'service_healthy' });
    expect(dependsOn('worker')).toEqual({ 'control-plane': 'service_healthy', redis: 'service_healthy' });
  });

  it('waits for every service that a connection setting points at', () => {
    for (const name of Object.keys(services)) {
      for (const [key, value] of Object.entries(env(name))) {
        const target = hostPort(value)?.host;
        if (target === undefined || target === name || !(target in services)) continue;
        expect(dependsOn(name)[target], `${name}.${key} points at ${target}`).toBe('service_healthy');
      }
    }
  });

  it('points the control plane at the postgres service with its credentials', () => {
    const pg = env('postgres');
    const url = new URL(env('control-plane').DATABASE_URL ?? '');
    expect(['postgres:', 'postgresql:']).toContain(url.protocol);
    expect(url.hostname).toBe('postgres');
    expect(Number(url.port || 5432)).toBe(5432);
    expect(decodeURIComponent(url.username)).toBe(pg.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(pg.POSTGRES_PASSWORD);
    expect(url.pathname.slice(1)).toBe(pg.POSTGRES_DB);
  });

  it('points Redis clients (the workers: shared counters and caches) at the redis service', () => {
    for (const name of ['worker']) {
      const url = new URL(env(name).REDIS_URL ?? '');
      expect(url.protocol).toBe('redis:');
      expect(url.hostname).toBe('redis');
      expect(Number(url.port || 6379)).toBe(6379);
    }
  });

  it("points workers at the control plane's gRPC port", () => {
    const grpcPort = Number(env('control-plane').GRPC_PORT ?? 50051);
    expect(env('worker').CONTROL_PLANE_GRPC_URL).toBe(`control-plane:${grpcPort}`);
  });

  it('gives the control plane and workers the same WORKER_TOKEN expression', () => {
    const cp = rawEnv('control-plane').WORKER_TOKEN;
    expect(cp).toBeDefined();
    expect(rawEnv('worker').WORKER_TOKEN).toBe(cp);
    // Taken from the host environment, so operators can set a real secret.
    expect(cp).toMatch(/\$\{WORKER_TOKEN(?::?-[^}]*)?\}/);
    const token = 'a-real-secret-token-0123456789';
    expect(env('worker', { WORKER_TOKEN: token }).WORKER_TOKEN).toBe(token);
    expect(env('control-plane', { ...REQUIRED_HOST_VARS, WORKER_TOKEN: token }).WORKER_TOKEN).toBe(token);
  });

  it("passes the processes' own configuration checks, with only the required host variables and with all of them", () => {
    const hostVarSets: Record<string, string | undefined>[] = [
      { ...REQUIRED_HOST_VARS },
      { WORKER_TOKEN: 'a-real-secret-token-0123456789', GATEWAY_ADMIN_KEY: 'A'.repeat(20) + '0123456789abcdefghij', GATEWAY_SECRET_KEY: 'ab'.repeat(32) },
    ];
    // The container sees the image's ENV overlaid with the service's environment.
    const containerEnv = (name: string, vars: Record<string, string | undefined>) => ({
      ...(service(name).build !== undefined ? dockerEnv() : {}),
      ...env(name, vars),
    });
    for (const vars of hostVarSets) {
      const cp = loadControlPlaneEnv(containerEnv('control-plane', vars));
      expect(cp.HOST).toBe('0.0.0.0');
      const worker = loadWorkerEnv(containerEnv('worker', vars));
      expect(worker.HOST).toBe('0.0.0.0');
      expect(worker.WORKER_TOKEN).toBe(cp.WORKER_TOKEN);
    }
    expect(loadControlPlaneEnv(env('control-plane', hostVarSets[1])).GATEWAY_ADMIN_KEY).toBe(hostVarSets[1]?.GATEWAY_ADMIN_KEY);
  });

  it('requires GATEWAY_SECRET_KEY from the host for the control plane only, and passes it through', () => {
    expect(rawEnv('control-plane').GATEWAY_SECRET_KEY).toMatch(/^\$\{GATEWAY_SECRET_KEY:\?[^}]+\}$/);
    for (const unset of [{}, { GATEWAY_SECRET_KEY: '' }]) {
      expect(() => env('control-plane', unset)).toThrow(/GATEWAY_SECRET_KEY.*32 bytes, base64/);
    }
    expect(env('control-plane').GATEWAY_SECRET_KEY).toBe(SECRET_KEY);
    expect(() => loadControlPlaneEnv(env('control-plane', { GATEWAY_SECRET_KEY: 'too-short' }))).toThrow(/GATEWAY_SECRET_KEY: must be 32 bytes/);
    // Workers never hold it: they get secrets from the control plane, never decrypt them.
    expect(rawEnv('worker')).not.toHaveProperty('GATEWAY_SECRET_KEY');
    expect(() => env('worker', {})).not.toThrow();
  });

  it('runs the workers with the worker entry point', () => {
    expect(effectiveCommand('worker')).toEqual(['npx', 'tsx', 'src/entry/worker.ts']);
  });

  it('runs tsx from production dependencies (the image installs with --omit=dev)', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies?: Record<string, string> };
    for (const name of builtServices()) {
      const cmd = effectiveCommand(name);
      if (cmd[0] === 'npx') expect(pkg.dependencies?.[cmd[1] ?? ''], `${name}: ${cmd.join(' ')}`).toBeDefined();
    }
  });

  describe('service commands name files in the repository and in the image', () => {
    const ignored = (file: string) =>
      dockerignore.some((pattern) => {
        const p = pattern.replace(/^\//, '').replace(/\/$/, '');
        return file === p || file.startsWith(`${p}/`);
      });
    for (const name of Object.keys(services).filter((n) => service(n).build !== undefined || service(n).command)) {
      it(name, () => {
        const files = scriptFiles(effectiveCommand(name));
        expect(files.length, `${name}: command names no script file`).toBeGreaterThan(0);
        for (const file of files) {
          expect(existsSync(join(root, file)), `${name}: ${file} does not exist`).toBe(true);
          if (service(name).build !== undefined) {
            const copied = copiedPaths().some((src) => src === '.' || file === src || file.startsWith(`${src}/`));
            expect(copied, `${name}: ${file} is not copied into the image`).toBe(true);
            expect(ignored(file), `${name}: ${file} is excluded by .dockerignore`).toBe(false);
          }
        }
      });
    }
  });
});

describe('Dockerfile', () => {
  it('builds on node:20-bookworm-slim in /app', () => {
    expect(instructions('FROM').map((i) => i.args)).toEqual(['node:20-bookworm-slim']);
    expect(instructions('WORKDIR').map((i) => i.args)).toContain('/app');
  });

  it('installs production dependencies with npm ci from the lockfile before copying the sources', () => {
    const ci = dockerfile.findIndex((i) => i.op === 'RUN' && /\bnpm ci\b/.test(i.args));
    expect(ci, 'no RUN npm ci').toBeGreaterThanOrEqual(0);
    expect(dockerfile[ci]?.args).toMatch(/--omit=dev\b/);
    const lockCopy = dockerfile.findIndex(
      (i) => i.op === 'COPY' && /\bpackage\.json\b/.test(i.args) && /\bpackage-lock\.json\b/.test(i.args),
    );
    expect(lockCopy, 'package.json and package-lock.json must be copied').toBeGreaterThanOrEqual(0);
    expect(lockCopy).toBeLessThan(ci);
    const srcCopy = dockerfile.findIndex((i) => i.op === 'COPY' && /\bsrc\b/.test(i.args));
    expect(srcCopy, 'src must be copied after npm ci (layer cache)').toBeGreaterThan(ci);
  });

  it('copies only paths that exist and everything the processes load', () => {
    const copied = copiedPaths();
    for (const p of copied) expect(existsSync(join(root, p)), `COPY source ${p} does not exist`).toBe(true);
    for (const needed of ['package.json', 'package-lock.json', 'proto', 'src', 'graphql', 'workers', 'tsconfig.json']) {
      expect(copied, `${needed} must be copied into the image`).toContain(needed);
    }
  });

  it('listens on all interfaces in production mode', () => {
    expect(dockerEnv()).toMatchObject({ HOST: '0.0.0.0', NODE_ENV: 'production' });
  });

  it('runs as the non-root node user', () => {
    const users = instructions('USER');
    expect(users.at(-1)?.args).toBe('node');
    const userAt = dockerfile.indexOf(users.at(-1) as Instruction);
    const cmdAt = dockerfile.indexOf(instructions('CMD').at(-1) as Instruction);
    expect(userAt).toBeLessThan(cmdAt);
  });

  it('exposes the control plane HTTP and gRPC ports and the worker port', () => {
    const exposed = instructions('EXPOSE').flatMap((i) => i.args.split(/\s+/)).map((p) => Number(p.replace(/\/tcp$/, '')));
    expect(exposed).toEqual(expect.arrayContaining([8080, 50051, 8787]));
  });

  it('leaves health checks to compose', () => {
    expect(instructions('HEALTHCHECK')).toEqual([]);
  });

  it('defaults to the control plane, with an entry file that exists', () => {
    const cmd = dockerCmd();
    expect(cmd).toEqual(['npx', 'tsx', 'src/entry/control-plane.ts']);
    expect(existsSync(join(root, 'src/entry/control-plane.ts')), 'src/entry/control-plane.ts does not exist').toBe(true);
  });
});

describe('.dockerignore', () => {
  it('keeps local state and dev-only files out of the build context', () => {
    expect(dockerignore).toEqual(expect.arrayContaining(['node_modules', '.data', '.git', 'test', 'coverage', '*.log']));
  });
});
