/** Host variables a step process inherits; everything else (DATABASE_URL, keys, OIDC…) stays behind. */
export const INHERITED_ENVIRONMENT = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'] as const;

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/** What a step process is told about the run it belongs to (MERIDIAN_SCHEDULE_* variables). */
export interface StepContext {
  scheduleId: string;
  scheduleName: string;
  executionId: string;
  stepIndex: number;
  stepName: string;
  scriptsRoot: string;
}

/**
 * The complete environment of a step process: the allow-listed host variables plus the run's context.
 * Built from scratch, so a secret in the service's environment can never leak to a script.
 */
export function stepEnvironment(host: Record<string, string | undefined>, context: StepContext): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENVIRONMENT) {
    const value = host[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  const clean = (v: string) => v.replace(/\0/g, '');
  env.MERIDIAN_SCHEDULE_ID = context.scheduleId;
  env.MERIDIAN_SCHEDULE_NAME = clean(context.scheduleName);
  env.MERIDIAN_SCHEDULE_EXECUTION_ID = context.executionId;
  env.MERIDIAN_SCHEDULE_STEP_INDEX = String(context.stepIndex);
  env.MERIDIAN_SCHEDULE_STEP_NAME = clean(context.stepName);
  env.MERIDIAN_SCHEDULE_SCRIPTS_ROOT = context.scriptsRoot;
  return env;
}
