import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { DomainError } from '@meridian/domain';

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException)?.code;
}

/**
 * Resolves a connector file path (relative to the connector-files root) to the real path of the file,
 * refusing absolute paths, `..` that leaves the root and symbolic links (of the file or any directory
 * on the way) that resolve outside it. The file itself need not exist (exports create it), but its
 * directory must. `field` names the setting in the VALIDATION_ERROR.
 */
export async function resolveConnectorFilePath(filesRoot: string, relativePath: string, field = 'settings.filePath'): Promise<string> {
  const refuse = (message: string) => DomainError.validation(field, message);
  const value = relativePath.trim();
  if (!value) throw refuse('File path is required.');
  if (value.includes('\0')) throw refuse('File path contains a NUL character.');
  if (path.isAbsolute(value) || path.win32.isAbsolute(value)) {
    throw refuse(`File path "${value}" must be relative to the connector-files root, not absolute.`);
  }
  const root = path.resolve(filesRoot);
  const candidate = path.resolve(root, value);
  if (candidate === root) throw refuse(`File path "${value}" names the connector-files root itself, not a file.`);
  if (!isInside(root, candidate)) throw refuse(`File path "${value}" points outside the connector-files root.`);

  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    throw refuse('The connector-files root does not exist on this server (MERIDIAN_CONNECTOR_FILES_ROOT).');
  }
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw refuse(`File path "${value}" cannot be resolved (${errnoCode(error) ?? 'error'}).`);
    let realDir: string;
    try {
      realDir = await realpath(path.dirname(candidate));
    } catch {
      throw refuse(`The directory of "${value}" does not exist under the connector-files root.`);
    }
    real = path.join(realDir, path.basename(candidate));
  }
  if (!isInside(realRoot, real)) throw refuse(`File path "${value}" resolves (through a symbolic link) outside the connector-files root.`);
  return real;
}
