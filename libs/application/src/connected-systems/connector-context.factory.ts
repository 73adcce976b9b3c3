import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@meridian/domain';
import { ConnectorContext } from '@meridian/connectors';
import { CertificateStore, ConnectedSystemEntity } from '@meridian/persistence';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, SecretBox } from '@meridian/platform';

/**
 * Secret settings at rest: `connected_system.secret_settings` is a JSON object of setting name →
 * AES-256-GCM sealed value, each sealed with the associated data `connected-system:<id>:<name>`, so a
 * value copied to another system or setting does not open. The names are readable without the key
 * (the API reports which secrets are set); the values are not.
 */
@Injectable()
export class ConnectorContextFactory {
  constructor(
    private readonly box: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  sealSecrets(systemId: number, secrets: Record<string, string>): string | null {
    const names = Object.keys(secrets).sort();
    if (!names.length) return null;
    return JSON.stringify(Object.fromEntries(names.map((name) => [name, this.box.seal(secrets[name], associatedData(systemId, name))])));
  }

  /** Decrypts the secret settings; a wrong key or a tampered value is a clear 409, never garbage. */
  openSecrets(system: Pick<ConnectedSystemEntity, 'id' | 'name' | 'secretSettings'>): Record<string, string> {
    if (!system.secretSettings) return {};
    const sealed = JSON.parse(system.secretSettings) as Record<string, string>;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(sealed)) {
      try {
        out[name] = this.box.open(value, associatedData(system.id, name));
      } catch {
        throw DomainError.conflict(
          `The secret setting "${name}" of connected system "${system.name}" cannot be decrypted: ` +
            'MERIDIAN_ENCRYPTION_KEY differs from the key it was stored with. Set the secret again.',
        );
      }
    }
    return out;
  }

  /** Everything a connector call needs: decrypted settings, the files root, trusted certificates. */
  async build(
    system: ConnectedSystemEntity,
    options: { signal?: AbortSignal; filePathOverride?: string | null } = {},
  ): Promise<ConnectorContext> {
    const secrets = this.openSecrets(system);
    return {
      settings: { ...system.settings, ...secrets },
      filesRoot: this.config.connectorFilesRoot,
      trustedCertificates: await new CertificateStore(this.ds.manager).trustedPems(),
      filePathOverride: options.filePathOverride ?? null,
      signal: options.signal,
    };
  }

  /** Removes secret values from a message a connector produced (e.g. a connection string in an error). */
  redact(
    message: string,
    context: Pick<ConnectorContext, 'settings'> | null,
    system: Pick<ConnectedSystemEntity, 'secretSettings'>,
  ): string {
    if (!context) return message;
    let out = message;
    for (const name of Object.keys(system.secretSettings ? JSON.parse(system.secretSettings) : {})) {
      const value = context.settings[name];
      if (typeof value === 'string' && value.length >= 3) out = out.split(value).join('********');
    }
    return out;
  }
}

function associatedData(systemId: number, name: string): string {
  return `connected-system:${systemId}:${name}`;
}

/** Runs a connector call with a deadline: the signal aborts it, and a call that ignores the signal still ends. */
export async function withDeadline<T>(ms: number, what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s.`));
      reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s.`));
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
