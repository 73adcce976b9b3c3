import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, DomainError, ValidationErrorCollector } from '@meridian/domain';
import { CertificateStore, TrustedCertificateEntity } from '@meridian/persistence';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { ParsedCertificate, parseDerBase64Certificate, parsePemCertificate } from './certificate-parser';

/** A certificate whose notAfter is within this many days (and not yet past) is flagged isExpiringSoon. */
export const CERTIFICATE_EXPIRING_SOON_DAYS = 30;
const DAY_MS = 86_400_000;
export const CERTIFICATE_NAME_MAX = 255;
export const CERTIFICATE_NOTES_MAX = 2000;

/** Body of an upload, as its DTO has validated it; exactly one of certificate and certificateBase64 is checked here. */
export interface CertificateUploadInput {
  name: string;
  /** null or empty text: no notes. */
  notes?: string | null;
  isEnabled?: boolean;
  certificate?: string | null;
  certificateBase64?: string | null;
}

/** PATCH body, as its DTO has validated it. */
export interface CertificateUpdateInput {
  name?: string;
  notes?: string | null;
  isEnabled?: boolean;
}

/** notes as stored: empty text clears them. */
const storedNotes = (notes: string | null | undefined) => (notes === undefined ? undefined : notes || null);

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
   * (connectors add them to the system trust store; a connector's context reads them from the same store).
   */
  async trustedCaPems(manager: EntityManager = this.ds.manager): Promise<string[]> {
    return new CertificateStore(manager).trustedPems();
  }

  async upload(input: CertificateUploadInput, initiator: Initiator): Promise<CertificateView> {
    const name = input.name.trim();
    const notes = storedNotes(input.notes);
    const parsed = this.parseCertificate(input);

    try {
      return await this.ds.transaction(async (m) => {
        const repo = m.getRepository(TrustedCertificateEntity);
        await this.refuseDuplicate(m, parsed.thumbprint);
        const saved = await repo.save(
          repo.create({
            name,
            notes: notes ?? null,
            isEnabled: input.isEnabled ?? true,
            ...parsed,
          }),
        );
        await this.activities.recordChange(
          {
            initiator,
            targetType: ActivityTargetType.TrustedCertificate,
            operation: ActivityOperationType.Create,
            targetId: saved.id,
            targetName: saved.name,
            message: `Uploaded ${parsed.subject}`,
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
        await this.refuseDuplicate(this.ds.manager, parsed.thumbprint);
      }
      throw err;
    }
  }

  /** PATCH semantics: only the fields present change. Returns nothing (spec 4.11: 204). */
  async update(id: string, input: CertificateUpdateInput, initiator: Initiator): Promise<void> {
    const name = input.name?.trim();
    const notes = storedNotes(input.notes);
    const isEnabled = input.isEnabled;

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

  /** The one certificate of an upload: exactly one of PEM text and base64 DER, parsed (400 naming the field otherwise). */
  private parseCertificate(input: CertificateUploadInput): ParsedCertificate {
    const pem = input.certificate ?? undefined;
    const der = input.certificateBase64 ?? undefined;
    if ((pem === undefined) === (der === undefined)) {
      const message =
        pem === undefined
          ? 'Give the certificate as PEM text in certificate or as base64 DER in certificateBase64.'
          : 'Give exactly one of certificate (PEM) and certificateBase64 (DER), not both.';
      new ValidationErrorCollector().add('certificate', message).add('certificateBase64', message).throwIfAny();
    }
    return pem !== undefined ? parsePemCertificate(pem, 'certificate') : parseDerBase64Certificate(der!, 'certificateBase64');
  }
}
