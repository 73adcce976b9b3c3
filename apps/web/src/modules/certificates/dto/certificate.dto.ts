import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { NonBlankText, UnlessNull, WhenPresent } from '../../../http/field.validation';
import {
  CERTIFICATE_EXPIRING_SOON_DAYS,
  CERTIFICATE_NAME_MAX,
  CERTIFICATE_NOTES_MAX,
  MAX_CERTIFICATE_TEXT_LENGTH,
} from '@meridian/application';

const NAME_MESSAGE = `name is required and must be 1-${CERTIFICATE_NAME_MAX} characters.`;
const NOTES_MESSAGE = `notes must be text of at most ${CERTIFICATE_NOTES_MAX} characters.`;
const ENABLED_MESSAGE = 'isEnabled must be true or false.';

const PEM_EXAMPLE = '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU…\n-----END CERTIFICATE-----\n';

export class UploadCertificateDto {
  @ApiProperty({ minLength: 1, maxLength: CERTIFICATE_NAME_MAX, example: 'Acme Root CA' })
  @NonBlankText(1, CERTIFICATE_NAME_MAX, NAME_MESSAGE)
  name: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String, example: "Issues the directory servers' LDAPS certificates." })
  @UnlessNull()
  @IsString({ message: NOTES_MESSAGE })
  @MaxLength(CERTIFICATE_NOTES_MAX, { message: NOTES_MESSAGE })
  notes?: string | null;

  @ApiPropertyOptional({ default: true, description: 'Only enabled certificates are trusted by connectors.' })
  @WhenPresent()
  @IsBoolean({ message: ENABLED_MESSAGE })
  isEnabled?: boolean;

  @ApiPropertyOptional({
    maxLength: MAX_CERTIFICATE_TEXT_LENGTH,
    example: PEM_EXAMPLE,
    description:
      'The certificate as PEM text: exactly one CERTIFICATE block; text around it is ignored. ' +
      'Give exactly one of certificate and certificateBase64. A PEM that contains a PRIVATE KEY block is refused.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CERTIFICATE_TEXT_LENGTH)
  certificate?: string;

  @ApiPropertyOptional({
    maxLength: MAX_CERTIFICATE_TEXT_LENGTH,
    example: 'MIIDdzCCAl+gAwIBAgIU…',
    description:
      'The certificate as DER, base64-encoded (the content of a .cer/.der file). Give exactly one of certificate and certificateBase64.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CERTIFICATE_TEXT_LENGTH)
  certificateBase64?: string;
}

/** Spec 4.11: all fields optional. */
export class UpdateCertificateDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: CERTIFICATE_NAME_MAX })
  @WhenPresent()
  @NonBlankText(1, CERTIFICATE_NAME_MAX, NAME_MESSAGE)
  name?: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String, description: 'null or empty text clears the notes.' })
  @UnlessNull()
  @IsString({ message: NOTES_MESSAGE })
  @MaxLength(CERTIFICATE_NOTES_MAX, { message: NOTES_MESSAGE })
  notes?: string | null;

  @ApiPropertyOptional()
  @WhenPresent()
  @IsBoolean({ message: ENABLED_MESSAGE })
  isEnabled?: boolean;
}

export class CertificateDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ minLength: 1, maxLength: 255 }) name: string;
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 2000 }) notes: string | null;
  @ApiProperty({ description: 'Only enabled, unexpired certificates are trusted by connectors.' }) isEnabled: boolean;
  @ApiProperty({
    example: '6589C983142EEF8AFBF852B09F00B403E787505EF5E14B63EC81E0CB4F1DFBA5',
    description: 'SHA-256 of the DER encoding, upper-case hex without separators. Unique.',
  })
  thumbprint: string;
  @ApiProperty({ example: 'CN=Acme Root CA,O=Acme\\, Ltd,C=GB', description: 'RFC 4514 string, most specific RDN first.' }) subject: string;
  @ApiProperty({
    example: 'CN=Acme Root CA,O=Acme\\, Ltd,C=GB',
    description: 'RFC 4514 string; equal to subject for a self-signed certificate.',
  })
  issuer: string;
  @ApiProperty({ example: '1EEA2209E34495FFFE530BA166CAE56787C39431', description: 'Upper-case hex.' }) serialNumber: string;
  @ApiProperty({ format: 'date-time' }) notBefore: string;
  @ApiProperty({ format: 'date-time' }) notAfter: string;
  @ApiProperty({ description: 'notAfter has passed.' }) isExpired: boolean;
  @ApiProperty({ description: `Not expired, and notAfter is within ${CERTIFICATE_EXPIRING_SOON_DAYS} days.` }) isExpiringSoon: boolean;
  @ApiProperty({ description: 'The basic constraints extension says CA:TRUE.' }) isCertificateAuthority: boolean;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
}
