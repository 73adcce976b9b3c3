import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  ADMINISTRATOR_ROLE,
  canonicalRole,
  DomainError,
  KNOWN_ROLES,
  ValidationErrorCollector,
} from '@meridian/domain';
import { ApiKeyEntity, ApiKeyStore } from '@meridian/persistence';
import { DataSource } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { displayPrefix, generateApiKeySecret, hashApiKey } from './api-key.secret';

/** Body of API key create and update, as its DTO has validated it (name present and not blank on create). */
export interface ApiKeyInput {
  name?: string;
  description?: string | null;
  roles?: string[];
  expiresAt?: Date | null;
  isEnabled?: boolean;
}

export function apiKeyView(k: ApiKeyEntity) {
  return {
    id: k.id,
    name: k.name,
    description: k.description,
    keyPrefix: k.keyPrefix,
    roles: k.roles,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    isExpired: !!k.expiresAt && k.expiresAt.getTime() <= Date.now(),
    isEnabled: k.isEnabled,
    isBootstrap: k.isBootstrap,
    created: k.created.toISOString(),
    createdByName: k.createdByName,
    lastUpdated: k.lastUpdated?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  };
}

export type ApiKeyView = ReturnType<typeof apiKeyView>;

/** API keys: create (secret shown once), read, update, delete, and the bootstrap key. */
@Injectable()
export class ApiKeysService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  async list(): Promise<ApiKeyView[]> {
    const keys = await this.ds.getRepository(ApiKeyEntity).find({ order: { created: 'ASC' } });
    return keys.map(apiKeyView);
  }

  async get(id: string): Promise<ApiKeyView> {
    return apiKeyView(await this.require(id));
  }

  async create(input: ApiKeyInput, initiator: Initiator): Promise<ApiKeyView & { key: string }> {
    const fields = this.fields(input, true);
    const secret = generateApiKeySecret();
    return this.ds.transaction(async (m) => {
      const saved = await m.getRepository(ApiKeyEntity).save({
        name: fields.name!,
        description: fields.description ?? null,
        roles: fields.roles ?? [],
        expiresAt: fields.expiresAt ?? null,
        isEnabled: fields.isEnabled ?? true,
        keyPrefix: displayPrefix(secret),
        keyHash: hashApiKey(secret),
        createdByType: initiator.type,
        createdByName: initiator.name,
      });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.ApiKey,
          operation: ActivityOperationType.Create,
          targetId: saved.id,
          targetName: saved.name,
          details: { roles: saved.roles, expiresAt: saved.expiresAt, isEnabled: saved.isEnabled },
        },
        m,
      );
      return { ...apiKeyView(saved), key: secret };
    });
  }

  async update(id: string, input: ApiKeyInput, initiator: Initiator): Promise<ApiKeyView> {
    const fields = this.fields(input, false);
    return this.ds.transaction(async (m) => {
      const key = await this.require(id, m.getRepository(ApiKeyEntity));
      if (key.isBootstrap && (fields.roles !== undefined || fields.isEnabled === false || fields.expiresAt !== undefined)) {
        throw DomainError.conflict('The bootstrap key is managed by MERIDIAN_BOOTSTRAP_API_KEY: change or unset the variable instead.');
      }
      const changed: string[] = [];
      for (const field of ['name', 'description', 'roles', 'expiresAt', 'isEnabled'] as const) {
        if (fields[field] !== undefined) {
          (key as unknown as Record<string, unknown>)[field] = fields[field];
          changed.push(field);
        }
      }
      key.lastUpdated = new Date();
      const saved = await m.getRepository(ApiKeyEntity).save(key);
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.ApiKey,
          operation: ActivityOperationType.Update,
          targetId: saved.id,
          targetName: saved.name,
          details: { changed },
        },
        m,
      );
      return apiKeyView(saved);
    });
  }

  async remove(id: string, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const key = await this.require(id, m.getRepository(ApiKeyEntity));
      if (key.isBootstrap)
        throw DomainError.conflict(
          'The bootstrap key is managed by MERIDIAN_BOOTSTRAP_API_KEY: unset the variable and restart to remove it.',
        );
      await m.getRepository(ApiKeyEntity).delete({ id });
      await this.activities.recordChange(
        { initiator, targetType: ActivityTargetType.ApiKey, operation: ActivityOperationType.Delete, targetId: id, targetName: key.name },
        m,
      );
    });
  }

  /**
   * Makes the bootstrap key match MERIDIAN_BOOTSTRAP_API_KEY: created when missing, re-keyed when the
   * variable changed, removed when the variable is unset. Idempotent; safe with several replicas.
   */
  async ensureBootstrapKey(secret: string | null): Promise<void> {
    await this.ds.transaction(async (m) => {
      await new ApiKeyStore(m).lockBootstrapKey();
      const repo = m.getRepository(ApiKeyEntity);
      const existing = await repo.findOneBy({ isBootstrap: true });
      if (!secret) {
        if (existing) await repo.delete({ id: existing.id });
        return;
      }
      const hash = hashApiKey(secret);
      if (existing) {
        if (existing.keyHash !== hash || !existing.isEnabled || !existing.roles.includes(ADMINISTRATOR_ROLE) || existing.expiresAt) {
          await repo.update(
            { id: existing.id },
            {
              keyHash: hash,
              keyPrefix: displayPrefix(secret),
              isEnabled: true,
              roles: [ADMINISTRATOR_ROLE],
              expiresAt: null,
              lastUpdated: new Date(),
            },
          );
        }
        return;
      }
      await repo.save({
        name: 'Bootstrap administrator key',
        description: 'Created from MERIDIAN_BOOTSTRAP_API_KEY.',
        roles: [ADMINISTRATOR_ROLE],
        keyHash: hash,
        keyPrefix: displayPrefix(secret),
        isBootstrap: true,
        isEnabled: true,
        createdByType: 'System',
        createdByName: 'System',
      });
    });
  }

  private async require(id: string, repo = this.ds.getRepository(ApiKeyEntity)): Promise<ApiKeyEntity> {
    const key = await repo.findOneBy({ id });
    if (!key) throw DomainError.notFound('API key', id);
    return key;
  }

  /** What a validated body stores: the name trimmed, roles by their canonical names, expiresAt as an instant (in the future on create). */
  private fields(
    input: ApiKeyInput,
    creating: boolean,
  ): { name?: string; description?: string | null; roles?: string[]; expiresAt?: Date | null; isEnabled?: boolean } {
    const errors = new ValidationErrorCollector();
    const out: ReturnType<ApiKeysService['fields']> = { description: input.description, isEnabled: input.isEnabled };
    if (input.name !== undefined) out.name = input.name.trim();
    if (input.roles !== undefined) {
      const roles = new Set<string>();
      for (const r of input.roles) {
        const canonical = canonicalRole(r);
        if (!canonical) errors.add('roles', `"${r}" is not a role; known roles: ${KNOWN_ROLES.join(', ')}.`);
        else roles.add(canonical);
      }
      out.roles = [...roles];
    }
    if (input.expiresAt !== undefined) {
      const d = input.expiresAt;
      if (creating && d && d.getTime() <= Date.now()) errors.add('expiresAt', 'expiresAt must be in the future.');
      else out.expiresAt = d;
    }
    errors.throwIfAny();
    return out;
  }
}
