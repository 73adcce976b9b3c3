import { accessSync, constants } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { resolveUnderRoot, ScriptPathError } from '../script-paths';
import { ArgumentsError, parseArguments } from './step-arguments';
import { StepContext, stepEnvironment } from './step-environment';
import { startProcessTask } from './process-task';
import { startSqlScriptTask } from './sql-script-task';
import { failedTask, StepLog, StepTask } from './step-task';

export const POWERSHELL_NOT_INSTALLED = 'PowerShell is not installed on this host';

const MAX_SQL_SCRIPT_BYTES = 10 * 1024 * 1024;

/** The definition of a step that runs on the scheduler (schedule_step columns). */
export interface LocalStepDefinition {
  stepType: string;
  executablePath: string | null;
  arguments: string | null;
  workingDirectory: string | null;
  scriptPath: string | null;
  sqlScriptPath: string | null;
  /** Already opened (clear) — or null. */
  sqlConnectionString: string | null;
}

export interface LaunchOptions {
  scriptsRoot: string;
  /** The host environment the allow-list picks from. */
  hostEnvironment: Record<string, string | undefined>;
  context: StepContext;
  log: StepLog;
  killGraceMs: number;
}

/** A path under the scripts root that exists, as its real path (resolveUnderRoot: no absolute paths, no `..`, no symlink escape). */
async function underRoot(root: string, relative: string, field: string, kind: 'file' | 'directory'): Promise<string> {
  try {
    return await resolveUnderRoot(root, relative, { kind });
  } catch (e) {
    if (e instanceof ScriptPathError) throw new StepLaunchError(`${field}: ${e.message}`);
    throw e;
  }
}

/** A step that cannot start: the reason becomes the step's error message. */
export class StepLaunchError extends Error {}

/** The `pwsh` executable on the step's PATH, or null. */
export function findPowerShell(path: string | undefined): string | null {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, 'pwsh');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

async function launch(step: LocalStepDefinition, options: LaunchOptions): Promise<StepTask> {
  const env = stepEnvironment(options.hostEnvironment, options.context);
  const root = options.scriptsRoot;
  const args = (): string[] => {
    try {
      return parseArguments(step.arguments);
    } catch (e) {
      throw new StepLaunchError((e as ArgumentsError).message);
    }
  };
  const cwd = async () => {
    if (step.workingDirectory) return underRoot(root, step.workingDirectory, 'workingDirectory', 'directory');
    try {
      return await realpath(root);
    } catch {
      throw new StepLaunchError(`the scripts root ${root} does not exist on this host (MERIDIAN_SCRIPTS_ROOT).`);
    }
  };

  switch (step.stepType) {
    case 'Executable': {
      if (!step.executablePath) throw new StepLaunchError('executablePath is not set.');
      const command = await underRoot(root, step.executablePath, 'executablePath', 'file');
      return startProcessTask({ command, args: args(), cwd: await cwd(), env, log: options.log, killGraceMs: options.killGraceMs });
    }
    case 'PowerShell': {
      const pwsh = findPowerShell(env.PATH);
      if (!pwsh) return failedTask(POWERSHELL_NOT_INSTALLED);
      if (!step.scriptPath) throw new StepLaunchError('scriptPath is not set.');
      const script = await underRoot(root, step.scriptPath, 'scriptPath', 'file');
      return startProcessTask({
        command: pwsh,
        args: ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', script, ...args()],
        cwd: await cwd(),
        env,
        log: options.log,
        killGraceMs: options.killGraceMs,
      });
    }
    case 'SqlScript': {
      if (!step.sqlConnectionString) throw new StepLaunchError('sqlConnectionString is not set.');
      if (!step.sqlScriptPath) throw new StepLaunchError('sqlScriptPath is not set.');
      const file = await underRoot(root, step.sqlScriptPath, 'sqlScriptPath', 'file');
      if ((await stat(file)).size > MAX_SQL_SCRIPT_BYTES)
        throw new StepLaunchError(`sqlScriptPath '${step.sqlScriptPath}' is larger than ${MAX_SQL_SCRIPT_BYTES / 1024 / 1024} MB.`);
      return startSqlScriptTask({ connectionString: step.sqlConnectionString, script: await readFile(file, 'utf8'), log: options.log });
    }
    default:
      throw new StepLaunchError(`${step.stepType} steps do not run on the scheduler.`);
  }
}

/**
 * Starts an Executable, PowerShell or SqlScript step on this host. Paths resolve under the scripts
 * root (a file that is missing, or escapes it through a symbolic link, fails the step); processes
 * get no shell and an allow-listed environment. Never throws: a step that cannot start is a failed task.
 */
export async function launchLocalStep(step: LocalStepDefinition, options: LaunchOptions): Promise<StepTask> {
  try {
    return await launch(step, options);
  } catch (e) {
    if (e instanceof StepLaunchError) return failedTask(e.message);
    return failedTask(`the step could not start: ${(e as Error).message}`);
  }
}
