// Shared helpers of the deployment checks: repository paths, YAML loading, optional CLI tools.
import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export const REPO = resolve(__dirname, '..', '..', '..');
export const K8S = join(REPO, 'k8s');

export const repoPath = (...parts: string[]): string => join(REPO, ...parts);
export const readRepoFile = (...parts: string[]): string => readFileSync(repoPath(...parts), 'utf8');

/** The processes of the one image, and what each runs. */
export const PROCESSES = ['web', 'worker', 'scheduler', 'migrate'] as const;
export const ENTRY_FILES: Record<(typeof PROCESSES)[number], string> = {
  web: 'apps/web/dist/main.js',
  worker: 'apps/worker/dist/main.js',
  scheduler: 'apps/scheduler/dist/main.js',
  migrate: 'tools/migrate.js',
};

/** Every environment variable the processes read (libs/platform/src/config/app-config.ts). */
export const CONFIG_VARIABLES = [
  'DATABASE_URL',
  'REDIS_URL',
  'MERIDIAN_REDIS_PREFIX',
  'PORT',
  'MERIDIAN_HOST',
  'MERIDIAN_BOOTSTRAP_API_KEY',
  'MERIDIAN_ENCRYPTION_KEY',
  'MERIDIAN_ENCRYPTION_KEY_FILE',
  'MERIDIAN_LOG_DIR',
  'MERIDIAN_LOG_LEVEL',
  'MERIDIAN_LOG_CONSOLE',
  'OIDC_AUTHORITY',
  'OIDC_CLIENT_ID',
  'OIDC_SCOPES',
  'OIDC_AUDIENCE',
  'OIDC_SUBJECT_CLAIM',
  'OIDC_SUBJECT_ATTRIBUTE',
  'OIDC_ALGORITHMS',
  'OIDC_HTTP_TIMEOUT_SECONDS',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'MERIDIAN_BODY_LIMIT',
  'MERIDIAN_CORS_ORIGINS',
  'MERIDIAN_TRUST_PROXY',
  'MERIDIAN_WORKER_CONCURRENCY',
  'MERIDIAN_CONNECTOR_FILES_ROOT',
  'MERIDIAN_SCRIPTS_ROOT',
  'MERIDIAN_SCHEDULER_CATCH_UP_MINUTES',
];
/** The ones that are secrets: never in a ConfigMap, never literal in docker-compose.yml. */
export const SECRET_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'MERIDIAN_ENCRYPTION_KEY', 'MERIDIAN_BOOTSTRAP_API_KEY'];

export type Obj = Record<string, any>;

export interface ManifestDoc {
  file: string;
  index: number;
  obj: Obj;
}

export function k8sFiles(): string[] {
  return readdirSync(K8S)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
}

/** Every document of every k8s/*.yaml except kustomization.yaml; throws on YAML errors. */
export function loadManifests(): ManifestDoc[] {
  const out: ManifestDoc[] = [];
  for (const file of k8sFiles().filter((f) => f !== 'kustomization.yaml')) {
    parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).forEach((doc, index) => {
      if (doc.errors.length) throw new Error(`${file}#${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
      out.push({ file, index, obj: doc.toJS() as Obj });
    });
  }
  return out;
}

export function loadYaml(...parts: string[]): Obj {
  return parse(readRepoFile(...parts), { merge: true }) as Obj;
}

/** Absolute path of an executable on PATH, or null. */
export function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd: options.cwd ?? REPO,
    env: options.env ?? process.env,
    input: options.input,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

/** Describes a spawn result for assertion messages. */
export function describeRun(r: SpawnSyncReturns<string>): string {
  return `exit ${r.status}${r.signal ? ` (signal ${r.signal})` : ''}${r.error ? ` error ${r.error.message}` : ''}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
}

/** Pod template spec of a workload (Deployment or Job). */
export function podSpec(workload: Obj): Obj {
  return workload.spec.template.spec;
}

/** True when every label of `selector` is on `labels`. */
export function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}
