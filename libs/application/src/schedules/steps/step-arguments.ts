/** A step's `arguments` text that cannot be split into an argument list. */
export class ArgumentsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgumentsError';
  }
}

/**
 * Splits a step's `arguments` into an argv list without any shell: whitespace separates arguments,
 * '…' is literal, "…" allows \" and \\ escapes, and a backslash outside quotes escapes the next character.
 * Nothing else is special — `;`, `&&`, `|`, `>`, `$()`, `*` and `~` reach the program as plain text.
 */
export function parseArguments(text: string | null | undefined): string[] {
  if (!text) return [];
  const args: string[] = [];
  let current = '';
  let inArgument = false;
  let quote: '"' | "'" | null = null;
  let quoteStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else current += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) current += text[++i];
      else current += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      quoteStart = i;
      inArgument = true;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw new ArgumentsError('arguments end with a lone backslash.');
      current += text[++i];
      inArgument = true;
    } else if (/\s/.test(c)) {
      if (inArgument) args.push(current);
      current = '';
      inArgument = false;
    } else {
      current += c;
      inArgument = true;
    }
  }
  if (quote)
    throw new ArgumentsError(
      `arguments have an unterminated ${quote === '"' ? 'double' : 'single'} quote (opened at character ${quoteStart + 1}).`,
    );
  if (inArgument) args.push(current);
  if (args.some((a) => a.includes('\0'))) throw new ArgumentsError('arguments must not contain NUL characters.');
  return args;
}
