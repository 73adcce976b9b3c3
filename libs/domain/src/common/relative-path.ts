/**
 * Checks a path an administrator gives for a file that must stay under a configured root (the
 * connector-files root, the scripts root): not empty, bounded, no control characters, not absolute (nor
 * `~`-prefixed), no `..` segments. Returns a message (to follow the field name) or null.
 */
export function relativePathProblem(path: string, root: { description: string; maxLength: number }): string | null {
  if (path.trim() === '') return 'must not be empty.';
  if (path.length > root.maxLength) return `must be at most ${root.maxLength} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'must not contain control characters.';
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path) || path.startsWith('~')) {
    return `must be relative to the ${root.description}, not absolute.`;
  }
  if (path.split(/[\\/]+/).some((segment) => segment === '..'))
    return `must not contain ".." segments: it must stay inside the ${root.description.replace(/ \(.*\)$/, '')}.`;
  return null;
}
