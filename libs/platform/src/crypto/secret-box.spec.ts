import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox({ encryptionKey: randomBytes(32) });

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('s3cr3t-password', 'connected-system:1');
    expect(sealed).not.toContain('s3cr3t');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(box.open(sealed, 'connected-system:1')).toBe('s3cr3t-password');
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses a wrong key, other associated data and tampering', () => {
    const sealed = box.seal('value', 'a');
    expect(() => new SecretBox({ encryptionKey: randomBytes(32) }).open(sealed, 'a')).toThrow();
    expect(() => box.open(sealed, 'b')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'a')).toThrow();
    expect(() => box.open('garbage')).toThrow('not a sealed secret');
  });

  it('seals JSON documents', () => {
    expect(box.openJson(box.sealJson({ password: 'p', token: 't' }))).toEqual({ password: 'p', token: 't' });
  });
});
