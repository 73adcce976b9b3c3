/** What a password looks like in responses; sending it back unchanged keeps the stored password. */
export const SECRET_MASK = '*****';

/** URL schemes a SqlScript step accepts: PostgreSQL, MySQL and MariaDB. */
export const SQL_CONNECTION_SCHEMES = ['postgres', 'postgresql', 'mysql', 'mariadb'] as const;

export const MAX_SQL_CONNECTION_STRING_LENGTH = 2000;

const SECRET_PARAM = /^(password|pwd|passwd|pass)$/i;

/** One secret inside a connection string: where it is (start/end in the text) and a key to match it by. */
interface SecretSpan {
  key: string;
  start: number;
  end: number;
}

/**
 * The secrets of a connection string: the password of a URL's user info (`scheme://user:secret@host`),
 * `password=` (`pwd`, `passwd`, `pass`) query parameters of a URL, and the same keys in
 * `Key=Value;` strings. Works on the raw text so the rest of the string stays byte-for-byte.
 */
function secretSpans(value: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(value);
  if (scheme) {
    const authorityStart = scheme[0].length;
    const authorityEnd = value.slice(authorityStart).search(/[/?#]/);
    const authority = value.slice(authorityStart, authorityEnd < 0 ? value.length : authorityStart + authorityEnd);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      const colon = authority.indexOf(':');
      if (colon >= 0 && colon < at) spans.push({ key: 'userinfo', start: authorityStart + colon + 1, end: authorityStart + at });
    }
    const queryStart = value.indexOf('?', authorityStart);
    if (queryStart >= 0) {
      const hash = value.indexOf('#', queryStart);
      const queryEnd = hash < 0 ? value.length : hash;
      let pos = queryStart + 1;
      for (const pair of value.slice(queryStart + 1, queryEnd).split('&')) {
        const eq = pair.indexOf('=');
        if (eq > 0 && SECRET_PARAM.test(decodeSafely(pair.slice(0, eq))))
          spans.push({ key: `param:${pair.slice(0, eq).toLowerCase()}`, start: pos + eq + 1, end: pos + pair.length });
        pos += pair.length + 1;
      }
    }
    return spans;
  }
  let pos = 0;
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && SECRET_PARAM.test(part.slice(0, eq).trim())) {
      const lead = part.slice(eq + 1).length - part.slice(eq + 1).trimStart().length;
      const trail = part.length - part.trimEnd().length;
      spans.push({ key: `kv:${part.slice(0, eq).trim().toLowerCase()}`, start: pos + eq + 1 + lead, end: pos + part.length - trail });
    }
    pos += part.length + 1;
  }
  return spans;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function replaceSpans(value: string, spans: SecretSpan[], replacement: (span: SecretSpan) => string): string {
  let out = value;
  for (const span of [...spans].sort((a, b) => b.start - a.start)) out = out.slice(0, span.start) + replacement(span) + out.slice(span.end);
  return out;
}

/** The connection string with every password replaced by `*****`; what responses show. */
export function maskConnectionString(value: string): string {
  return replaceSpans(
    value,
    secretSpans(value).filter((s) => s.end > s.start),
    () => SECRET_MASK,
  );
}

/** Whether any password of the string is the mask (`*****`). */
export function hasMaskedSecret(value: string): boolean {
  return secretSpans(value).some((s) => value.slice(s.start, s.end) === SECRET_MASK);
}

/**
 * Puts the stored passwords back where a client sent a masked one (`*****`), matched by position
 * kind (URL user info, or the same parameter name), so an edited host or database keeps the stored
 * password. Returns the merged string and whether a mask was left without a stored value.
 */
export function restoreMaskedSecrets(sent: string, stored: string | null): { value: string; unresolved: boolean } {
  const storedSecrets = new Map<string, string>();
  if (stored) for (const s of secretSpans(stored)) storedSecrets.set(s.key, stored.slice(s.start, s.end));
  let unresolved = false;
  const value = replaceSpans(
    sent,
    secretSpans(sent).filter((s) => sent.slice(s.start, s.end) === SECRET_MASK),
    (span) => {
      const original = storedSecrets.get(span.key);
      if (original === undefined) unresolved = true;
      return original ?? SECRET_MASK;
    },
  );
  return { value, unresolved };
}

/**
 * Checks a SqlScript connection string: a `postgres://`, `postgresql://`, `mysql://` or `mariadb://`
 * URL with a host. Returns a message (never containing the value, which may hold a password) or null.
 */
export function sqlConnectionStringProblem(value: string): string | null {
  const expected = 'must be a postgres://, postgresql://, mysql:// or mariadb:// URL such as postgres://user:password@host:5432/database';
  if (value.length > MAX_SQL_CONNECTION_STRING_LENGTH) return `must be at most ${MAX_SQL_CONNECTION_STRING_LENGTH} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s]/.test(value)) return 'must not contain spaces or control characters (percent-encode them).';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${expected}.`;
  }
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  if (!(SQL_CONNECTION_SCHEMES as readonly string[]).includes(scheme))
    return `${expected}; the scheme '${scheme.slice(0, 40)}' is not supported.`;
  if (!url.hostname) return `${expected}; it names no host.`;
  return null;
}
