import { X509Certificate } from 'node:crypto';
import { DomainError } from '@meridian/domain';

/** The facts Meridian keeps about an uploaded certificate. */
export interface ParsedCertificate {
  /** SHA-256 of the DER encoding, upper-case hex without separators. */
  thumbprint: string;
  /** RFC 4514 form, most specific RDN first: `CN=Acme Root CA,O=Acme\, Ltd,C=GB`. */
  subject: string;
  issuer: string;
  /** Upper-case hex, an even number of digits (as `openssl x509 -serial` prints it). */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  isCertificateAuthority: boolean;
  /** The certificate alone, re-encoded as PEM (text around it in the upload is dropped). */
  pem: string;
}

/** Longest PEM text or base64 accepted; a certificate with many names is a few kilobytes. */
export const MAX_CERTIFICATE_TEXT_LENGTH = 65_536;

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;
// PRIVATE KEY, RSA/EC/DSA PRIVATE KEY, ENCRYPTED PRIVATE KEY, OPENSSH PRIVATE KEY…
const PRIVATE_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A PEM upload: exactly one CERTIFICATE block and no private key. */
export function parsePemCertificate(text: string, field = 'certificate'): ParsedCertificate {
  if (PRIVATE_KEY_BLOCK.test(text)) {
    throw DomainError.validation(
      field,
      `${field} contains a private key. Upload the certificate only: a trusted certificate never needs its key, and Meridian does not store keys.`,
    );
  }
  const blocks = [...text.matchAll(CERTIFICATE_BLOCK)];
  if (blocks.length === 0) {
    throw DomainError.validation(field, `${field} must be a PEM certificate (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----).`);
  }
  if (blocks.length > 1) {
    throw DomainError.validation(field, `${field} contains ${blocks.length} certificates; upload one certificate at a time.`);
  }
  const body = blocks[0][1].replace(/\s+/g, '');
  if (!BASE64.test(body)) throw DomainError.validation(field, `${field} is not valid PEM: the block is not base64.`);
  return parseDer(Buffer.from(body, 'base64'), field);
}

/** A DER upload, base64-encoded (whitespace allowed). */
export function parseDerBase64Certificate(text: string, field = 'certificateBase64'): ParsedCertificate {
  const body = text.replace(/\s+/g, '');
  if (!body || !BASE64.test(body) || body.length % 4 !== 0) {
    throw DomainError.validation(field, `${field} must be the DER encoding of a certificate in base64.`);
  }
  return parseDer(Buffer.from(body, 'base64'), field);
}

function parseDer(der: Buffer, field: string): ParsedCertificate {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch {
    throw DomainError.validation(field, `${field} is not an X.509 certificate (it could not be parsed).`);
  }
  // OpenSSL stops at the end of the certificate; anything after it would be silently dropped.
  if (cert.raw.length !== der.length) {
    throw DomainError.validation(field, `${field} has ${der.length - cert.raw.length} bytes of data after the certificate.`);
  }
  const notBefore = parseOpenSslTime(cert.validFrom);
  const notAfter = parseOpenSslTime(cert.validTo);
  if (!notBefore || !notAfter) throw DomainError.validation(field, `${field} has validity dates that could not be read.`);
  return {
    thumbprint: cert.fingerprint256.replace(/:/g, '').toUpperCase(),
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    serialNumber: serialHex(cert.serialNumber),
    notBefore,
    notAfter,
    isCertificateAuthority: cert.ca,
    pem: cert.toString().trim() + '\n',
  };
}

/**
 * Node prints names one RDN per line, least specific first, values already escaped as RFC 2253
 * requires (control characters included, so a line break always separates RDNs). RFC 4514 order is
 * most specific first, comma-separated.
 */
export function distinguishedName(multiline: string): string {
  return multiline.split('\n').filter(Boolean).reverse().join(',');
}

function serialHex(serial: string): string {
  const hex = serial.toUpperCase();
  return hex.length % 2 === 1 ? `0${hex}` : hex;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** OpenSSL's ASN1_TIME_print form, `Nov 19 08:43:44 2036 GMT`, parsed without relying on Date's lenient parser. */
export function parseOpenSslTime(text: string): Date | null {
  const m = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d+)? (\d{4}) GMT$/.exec(text.trim());
  if (!m) return null;
  const month = MONTHS.indexOf(m[1]);
  if (month < 0) return null;
  const d = new Date(Date.UTC(Number(m[6]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])));
  return Number.isNaN(d.getTime()) ? null : d;
}
