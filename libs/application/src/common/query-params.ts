/** A LIKE pattern matching values that start with `text` (wildcards in it taken literally). */
export function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
