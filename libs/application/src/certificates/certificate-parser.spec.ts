import { DomainError } from '@meridian/domain';
import { distinguishedName, parseDerBase64Certificate, parseOpenSslTime, parsePemCertificate } from './certificate-parser';

const fieldErrors = (fn: () => unknown): Record<string, string[]> | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.validationErrors;
    throw e;
  }
  throw new Error('expected a DomainError');
};

describe('parseOpenSslTime', () => {
  it.each([
    ['Nov 19 08:43:44 2036 GMT', '2036-11-19T08:43:44.000Z'],
    ['Jan  1 00:00:00 2020 GMT', '2020-01-01T00:00:00.000Z'],
    ['Feb 29 23:59:59 2024 GMT', '2024-02-29T23:59:59.000Z'],
    ['Dec 31 23:59:59 9999 GMT', '9999-12-31T23:59:59.000Z'],
  ])('reads %s', (text, iso) => {
    expect(parseOpenSslTime(text)?.toISOString()).toBe(iso);
  });

  it.each(['', 'yesterday', 'Foo 19 08:43:44 2036 GMT', 'Nov 19 08:43:44 2036', '2036-11-19T08:43:44Z'])('refuses %p', (text) => {
    expect(parseOpenSslTime(text)).toBeNull();
  });
});

describe('distinguishedName', () => {
  it('turns Node’s one-RDN-per-line form into RFC 4514, most specific first, keeping escapes', () => {
    expect(distinguishedName('C=GB\nO=Acme\\, Ltd\nCN=Acme Root CA')).toBe('CN=Acme Root CA,O=Acme\\, Ltd,C=GB');
    expect(distinguishedName('CN=only')).toBe('CN=only');
    expect(distinguishedName('')).toBe('');
  });
});

describe('certificate input', () => {
  const block = (body: string, label = 'CERTIFICATE') => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;

  it.each([
    ['no PEM block', 'hello', /must be a PEM certificate/],
    ['two certificates', block('AAAA') + block('AAAA'), /2 certificates/],
    ['a PKCS#8 private key', block('AAAA') + block('AAAA', 'PRIVATE KEY'), /private key/],
    ['an RSA private key', block('AAAA', 'RSA PRIVATE KEY') + block('AAAA'), /private key/],
    ['an encrypted private key', block('AAAA', 'ENCRYPTED PRIVATE KEY'), /private key/],
    ['an OpenSSH private key', block('AAAA', 'OPENSSH PRIVATE KEY'), /private key/],
    ['a TRUSTED CERTIFICATE block', block('AAAA', 'TRUSTED CERTIFICATE'), /must be a PEM certificate/],
    ['a body that is not base64', block('!!!'), /not base64/],
    ['base64 that is not a certificate', block(Buffer.from('not a certificate').toString('base64')), /not an X\.509 certificate/],
  ])('PEM with %s is a VALIDATION_ERROR on the field', (_, text, message) => {
    const errors = fieldErrors(() => parsePemCertificate(text));
    expect(Object.keys(errors ?? {})).toEqual(['certificate']);
    expect(errors!.certificate.join(' ')).toMatch(message);
  });

  it.each([
    ['empty', ''],
    ['not base64', 'abc$'],
    ['truncated base64', 'QUJD\nRA'],
    ['base64 of something else', Buffer.from('hello world!').toString('base64')],
  ])('DER base64 that is %s is a VALIDATION_ERROR on certificateBase64', (_, text) => {
    expect(Object.keys(fieldErrors(() => parseDerBase64Certificate(text)) ?? {})).toEqual(['certificateBase64']);
  });
});
