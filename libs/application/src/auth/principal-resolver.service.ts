import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { BuiltInObjectTypes, DomainError, ErrorCode } from '@meridian/domain';
import { ApiKeyEntity } from '@meridian/persistence';
import { APP_CONFIG, AppConfig, Principal, PrincipalResolver } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { hashApiKey, sameHash } from '../api-keys/api-key.secret';
import { lookupValueSql } from '../metaverse/metaverse-lookups';

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
    // At most one write a minute per key, so a busy key does not turn every read into a write.
    await this.ds.query(
      `UPDATE api_key SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [key.id],
    );
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
    const rows: Array<{ id: string; display_name: string | null }> = await this.ds.query(
      `SELECT o.id, o.display_name
         FROM metaverse_attribute a
         JOIN metaverse_object_lookup l ON l.attribute_id = a.id AND l.value_normalised = ${lookupValueSql('$2')}
         JOIN metaverse_object o ON o.id = l.object_id
         JOIN metaverse_object_type t ON t.id = o.type_id AND t.name = $3
        WHERE lower(a.name) = lower($1) AND o.status = 'Normal'
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(o.attributes -> a.id::text) e WHERE e ->> 'v' = $2)
        LIMIT 2`,
      [attribute, subject, BuiltInObjectTypes.User],
    );
    const fallbackName =
      [claims.name, claims.preferred_username, claims.email].find((v): v is string => typeof v === 'string' && v !== '') ?? subject;
    if (rows.length !== 1) {
      return { authMethod: 'oauth', name: fallbackName, authorised: false, roles: [], metaverseObjectId: null, apiKeyId: null, subject };
    }
    const roles: Array<{ name: string }> = await this.ds.query(
      `SELECT r.name FROM role_member m JOIN role r ON r.id = m.role_id WHERE m.metaverse_object_id = $1 ORDER BY r.name`,
      [rows[0].id],
    );
    return {
      authMethod: 'oauth',
      name: rows[0].display_name ?? fallbackName,
      authorised: true,
      roles: roles.map((r) => r.name),
      metaverseObjectId: rows[0].id,
      apiKeyId: null,
      subject,
    };
  }
}
