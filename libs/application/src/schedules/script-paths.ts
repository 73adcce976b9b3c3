import { realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { relativeScriptPathProblem } from '@meridian/domain';

/** Why a step's path cannot be used; the message names the path (never anything secret). */
export class ScriptPathError extends Error {
  override readonly name = 'ScriptPathError';
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * Resolves a step path (executable, script, SQL script or working directory) given relative to the
 * scripts root (AppConfig.scriptsRoot, MERIDIAN_SCRIPTS_ROOT) to the real path of an existing file
 * (`kind: 'file'`, the default) or directory. Refuses absolute paths, `..` segments, a missing
 * target, the wrong kind, and symbolic links (of the target or any directory on the way) that lead
 * outside the root. Throws ScriptPathError; the save-time check is relativeScriptPathProblem.
 */
export async function resolveUnderRoot(root: string, relative: string, options: { kind?: 'file' | 'directory' } = {}): Promise<string> {
  const kind = options.kind ?? 'file';
  const value = typeof relative === 'string' ? relative.trim() : '';
  const problem = relativeScriptPathProblem(value);
  if (problem) throw new ScriptPathError(`The path "${value.slice(0, 200)}" ${problem}`);
  const resolvedRoot = path.resolve(root);
  const candidate = path.resolve(resolvedRoot, value);
  if (candidate !== resolvedRoot && !isInside(resolvedRoot, candidate))
    throw new ScriptPathError(`The path "${value}" points outside the scripts root.`);

  let realRoot: string;
  try {
    realRoot = await realpath(resolvedRoot);
  } catch {
    throw new ScriptPathError(`The scripts root "${resolvedRoot}" does not exist on this host (MERIDIAN_SCRIPTS_ROOT).`);
  }
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    throw new ScriptPathError(
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `The ${kind} "${value}" does not exist under the scripts root.`
        : `The path "${value}" cannot be resolved (${code ?? 'error'}).`,
    );
  }
  if (real !== realRoot && !isInside(realRoot, real))
    throw new ScriptPathError(`The path "${value}" resolves (through a symbolic link) outside the scripts root.`);
  if (real === realRoot && kind === 'file') throw new ScriptPathError(`The path "${value}" names the scripts root itself, not a file.`);
  const info = await stat(real);
  if (kind === 'file' && !info.isFile()) throw new ScriptPathError(`The path "${value}" is not a file.`);
  if (kind === 'directory' && !info.isDirectory()) throw new ScriptPathError(`The path "${value}" is not a directory.`);
  return real;
}
