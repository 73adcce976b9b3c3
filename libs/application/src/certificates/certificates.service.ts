import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, DomainError, ValidationErrorCollector } from '@meridian/domain';
import { CertificateStore, TrustedCertificateEntity } from '@meridian/persistence';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { MAX_CERTIFICATE_TEXT_LENGTH, ParsedCertificate, parseDerBase64Certificate, parsePemCertificate } from './certificate-parser';

/** A certificate whose notAfter is within this many days (and not yet past) is flagged isExpiringSoon. */
export const CERTIFICATE_EXPIRING_SOON_DAYS = 30;
const DAY_MS = 86_400_000;
export const CERTIFICATE_NAME_MAX = 255;
export const CERTIFICATE_NOTES_MAX = 2000;

export interface CertificateUploadInput {
  name?: unknown;
  notes?: unknown;
  isEnabled?: unknown;
  certificate?: unknown;
  certificateBase64?: unknown;
}

export interface CertificateUpdateInput {
  name?: unknown;
  notes?: unknown;
  isEnabled?: unknown;
}

export function certificateView(c: TrustedCertificateEntity, now = Date.now()) {
  const expiresAt = c.notAfter.getTime();
  const isExpired = expiresAt <= now;
  return {
    id: c.id,
    name: c.name,
    notes: c.notes,
    isEnabled: c.isEnabled,
    thumbprint: c.thumbprint,
    subject: c.subject,
    issuer: c.issuer,
    serialNumber: c.serialNumber,
    notBefore: c.notBefore.toISOString(),
    notAfter: c.notAfter.toISOString(),
    isExpired,
    isExpiringSoon: !isExpired && expiresAt - now <= CERTIFICATE_EXPIRING_SOON_DAYS * DAY_MS,
    isCertificateAuthority: c.isCertificateAuthority,
    created: c.created.toISOString(),
    lastUpdated: c.lastUpdated?.toISOString() ?? null,
  };
}

export type CertificateView = ReturnType<typeof certificateView>;

/** Trusted certificates (spec 4.11): CAs that LDAPS and HTTPS connectors trust besides the system store. */
@Injectable()
export class CertificatesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  async list(): Promise<CertificateView[]> {
    const rows = await this.ds.getRepository(TrustedCertificateEntity).find({ order: { name: 'ASC', created: 'ASC' } });
    const now = Date.now();
    return rows.map((c) => certificateView(c, now));
  }

  async get(id: string): Promise<CertificateView> {
    return certificateView(await this.require(id));
  }

  /** The stored PEM of one certificate. */
  async pem(id: string): Promise<{ name: string; thumbprint: string; pem: string }> {
    const c = await this.require(id);
    return { name: c.name, thumbprint: c.thumbprint, pem: c.pem };
  }

  /**
   * PEMs of the enabled certificates that have not expired, for a TLS client's `ca` option
   * (connectors add them to the system trust store).
   */
  async trustedCaPems(manager: EntityManager = this.ds.manager): Promise<string[]> {
    return new CertificateStore(manager).trustedPems();
  }

  async upload(input: CertificateUploadInput, initiator: Initiator): Promise<CertificateView> {
    const errors = new ValidationErrorCollector();
    const name = this.checkName(input.name, true, errors);
    const notes = this.checkNotes(input.notes, errors);
    const isEnabled = this.checkEnabled(input.isEnabled, errors);
    const parsed = this.checkCertificate(input, errors);
    errors.throwIfAny();

    try {
      return await this.ds.transaction(async (m) => {
        const repo = m.getRepository(TrustedCertificateEntity);
        await this.refuseDuplicate(m, parsed!.thumbprint);
        const saved = await repo.save(
          repo.create({
            name: name!,
            notes: notes ?? null,
            isEnabled: isEnabled ?? true,
            ...parsed!,
          }),
        );
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.TrustedCertificate,
            operation: ActivityOperationType.Create,
            targetId: saved.id,
            targetName: saved.name,
            message: `Uploaded ${parsed!.subject}`,
            details: {
              thumbprint: saved.thumbprint,
              subject: saved.subject,
              issuer: saved.issuer,
              notAfter: saved.notAfter.toISOString(),
              isEnabled: saved.isEnabled,
            },
          },
          m,
        );
        return certificateView(saved);
      });
    } catch (err) {
      // Two uploads of the same certificate at once: the unique index decides, with the same answer.
      if (
        err instanceof QueryFailedError &&
        (err as { driverError?: { constraint?: string } }).driverError?.constraint === 'uq_trusted_certificate_thumbprint'
      ) {
        await this.refuseDuplicate(this.ds.manager, parsed!.thumbprint);
      }
      throw err;
    }
  }

  /** PATCH semantics: only the fields present change. Returns nothing (spec 4.11: 204). */
  async update(id: string, input: CertificateUpdateInput, initiator: Initiator): Promise<void> {
    const errors = new ValidationErrorCollector();
    const name = this.checkName(input.name, false, errors);
    const notes = this.checkNotes(input.notes, errors);
    const isEnabled = this.checkEnabled(input.isEnabled, errors);
    errors.throwIfAny();

    await this.ds.transaction(async (m) => {
      const repo = m.getRepository(TrustedCertificateEntity);
      const cert = await this.require(id, m);
      const changed: string[] = [];
      const previousName = cert.name;
      if (name !== undefined && name !== cert.name) {
        cert.name = name;
        changed.push('name');
      }
      if (notes !== undefined && notes !== cert.notes) {
        cert.notes = notes;
        changed.push('notes');
      }
      if (isEnabled !== undefined && isEnabled !== cert.isEnabled) {
        cert.isEnabled = isEnabled;
        changed.push('isEnabled');
      }
      // Nothing different: not a change, so no activity and lastUpdated stays.
      if (!changed.length) return;
      cert.lastUpdated = new Date();
      await repo.save(cert);
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.TrustedCertificate,
          operation: ActivityOperationType.Update,
          targetId: cert.id,
          targetName: cert.name,
          details: {
            thumbprint: cert.thumbprint,
            changed,
            ...(changed.includes('name') ? { previousName } : {}),
            isEnabled: cert.isEnabled,
          },
        },
        m,
      );
    });
  }

  async remove(id: string, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const cert = await this.require(id, m);
      await m.getRepository(TrustedCertificateEntity).delete({ id });
      await this.activities.recordChange(
        {
          initiator,
          targetType: ActivityTargetType.TrustedCertificate,
          operation: ActivityOperationType.Delete,
          targetId: id,
          targetName: cert.name,
          details: { thumbprint: cert.thumbprint, subject: cert.subject },
        },
        m,
      );
    });
  }

  private async require(id: string, manager: EntityManager = this.ds.manager): Promise<TrustedCertificateEntity> {
    const cert = await manager.getRepository(TrustedCertificateEntity).findOneBy({ id });
    if (!cert) throw DomainError.notFound('Certificate', id);
    return cert;
  }

  private async refuseDuplicate(m: EntityManager, thumbprint: string): Promise<void> {
    const existing = await m.getRepository(TrustedCertificateEntity).findOne({ where: { thumbprint }, select: { id: true, name: true } });
    if (existing) {
      throw DomainError.conflict(`This certificate (thumbprint ${thumbprint}) is already trusted as "${existing.name}" (${existing.id}).`, {
        thumbprint,
        existingId: existing.id,
      });
    }
  }

  private checkName(value: unknown, required: boolean, errors: ValidationErrorCollector): string | undefined {
    if (value === undefined && !required) return undefined;
    const message = `name is required and must be 1-${CERTIFICATE_NAME_MAX} characters.`;
    if (typeof value !== 'string') {
      errors.add('name', message);
      return undefined;
    }
    const name = value.trim();
    if (!name || value.length > CERTIFICATE_NAME_MAX) {
      errors.add('name', message);
      return undefined;
    }
    return name;
  }

  /** notes: text of at most 2000 characters; null (or empty text) clears them. */
  private checkNotes(value: unknown, errors: ValidationErrorCollector): string | null | undefined {
    if (value === undefined) return undefined;
    if (value === null) return null;
    if (typeof value !== 'string' || value.length > CERTIFICATE_NOTES_MAX) {
      errors.add('notes', `notes must be text of at most ${CERTIFICATE_NOTES_MAX} characters.`);
      return undefined;
    }
    return value === '' ? null : value;
  }

  private checkEnabled(value: unknown, errors: ValidationErrorCollector): boolean | undefined {
    if (value === undefined) return undefined;
    // The DTO lets null through (@IsOptional); the column is NOT NULL.
    if (typeof value !== 'boolean') {
      errors.add('isEnabled', 'isEnabled must be true or false.');
      return undefined;
    }
    return value;
  }

  private checkCertificate(input: CertificateUploadInput, errors: ValidationErrorCollector): ParsedCertificate | undefined {
    const pem = input.certificate ?? undefined;
    const der = input.certificateBase64 ?? undefined;
    if (pem === undefined && der === undefined) {
      const message = 'Give the certificate as PEM text in certificate or as base64 DER in certificateBase64.';
      errors.add('certificate', message).add('certificateBase64', message);
      return undefined;
    }
    if (pem !== undefined && der !== undefined) {
      const message = 'Give exactly one of certificate (PEM) and certificateBase64 (DER), not both.';
      errors.add('certificate', message).add('certificateBase64', message);
      return undefined;
    }
    const field = pem !== undefined ? 'certificate' : 'certificateBase64';
    const text = pem ?? der;
    if (typeof text !== 'string' || text.length > MAX_CERTIFICATE_TEXT_LENGTH) {
      errors.add(field, `${field} must be text of at most ${MAX_CERTIFICATE_TEXT_LENGTH} characters.`);
      return undefined;
    }
    try {
      return field === 'certificate' ? parsePemCertificate(text, field) : parseDerBase64Certificate(text, field);
    } catch (err) {
      if (err instanceof DomainError && err.validationErrors) {
        for (const message of err.validationErrors[field] ?? [err.message]) errors.add(field, message);
        return undefined;
      }
      throw err;
    }
  }
}
