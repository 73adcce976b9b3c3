import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { BuiltInObjectTypes, DomainError, ErrorCode } from '@meridian/domain';
import { ApiKeyEntity, ApiKeyStore, MetaverseObjectStore, RoleStore } from '@meridian/persistence';
import { APP_CONFIG, AppConfig, Principal, PrincipalResolver } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { hashApiKey, sameHash } from '../api-keys/api-key.secret';

/** Resolves API keys and OIDC subjects to principals; roles come from the key or the metaverse. */
@Injectable()
export class DatabasePrincipalResolver extends PrincipalResolver {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async resolveApiKey(secret: string): Promise<Principal> {
    const hash = hashApiKey(secret);
    const key = await this.ds.getRepository(ApiKeyEntity).findOneBy({ keyHash: hash });
    if (!key || !sameHash(key.keyHash, hash)) throw new DomainError(ErrorCode.Unauthorised, 'The API key is not valid.');
    if (!key.isEnabled) throw new DomainError(ErrorCode.Unauthorised, 'The API key is disabled.');
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw new DomainError(ErrorCode.Unauthorised, 'The API key has expired.');
    await new ApiKeyStore(this.ds).touchLastUsed(key.id);
    return {
      authMethod: 'api_key',
      name: key.name,
      authorised: true,
      roles: key.roles,
      metaverseObjectId: null,
      apiKeyId: key.id,
      subject: null,
    };
  }

  async resolveTokenSubject(subject: string, claims: Record<string, unknown>): Promise<Principal> {
    const attribute = this.config.oidc?.subjectAttribute ?? 'Subject Identifier';
    // Two answers are enough to tell an ambiguous subject from a unique one.
    const rows = await new MetaverseObjectStore(this.ds.manager).withValue(BuiltInObjectTypes.User, attribute, subject, 2);
    const fallbackName =
      [claims.name, claims.preferred_username, claims.email].find((v): v is string => typeof v === 'string' && v !== '') ?? subject;
    if (rows.length !== 1) {
      return { authMethod: 'oauth', name: fallbackName, authorised: false, roles: [], metaverseObjectId: null, apiKeyId: null, subject };
    }
    const roles = await new RoleStore(this.ds).roleNamesOf(rows[0].id);
    return {
      authMethod: 'oauth',
      name: rows[0].displayName ?? fallbackName,
      authorised: true,
      roles,
      metaverseObjectId: rows[0].id,
      apiKeyId: null,
      subject,
    };
  }
}
