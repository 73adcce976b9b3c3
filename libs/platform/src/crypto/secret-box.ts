import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '../config/app-config';

const VERSION = 'v1';

/**
 * Encrypts secrets at rest with AES-256-GCM under MERIDIAN_ENCRYPTION_KEY. The stored form is
 * `v1.<iv>.<tag>.<ciphertext>` (base64url); tampering or a wrong key fails decryption.
 */
@Injectable()
export class SecretBox {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'encryptionKey'>) {
    if (config.encryptionKey.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.key = config.encryptionKey;
  }

  seal(plaintext: string, associatedData = ''): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  open(sealed: string, associatedData = ''): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Seals a JSON document (e.g. a connected system's secret settings). */
  sealJson(value: unknown, associatedData = ''): string {
    return this.seal(JSON.stringify(value), associatedData);
  }

  openJson<T>(sealed: string, associatedData = ''): T {
    return JSON.parse(this.open(sealed, associatedData)) as T;
  }
}
