import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { CERTIFICATE_EXPIRING_SOON_DAYS, MAX_CERTIFICATE_TEXT_LENGTH } from '@meridian/application';

const PEM_EXAMPLE = '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU…\n-----END CERTIFICATE-----\n';

export class UploadCertificateDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'Acme Root CA' })
  @IsString()
  @Length(1, 255)
  name: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String, example: "Issues the directory servers' LDAPS certificates." })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(2000)
  notes?: string | null;

  @ApiPropertyOptional({ default: true, description: 'Only enabled certificates are trusted by connectors.' })
  @IsOptional()
  @IsBoolean()
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
  @ApiPropertyOptional({ minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String, description: 'null or empty text clears the notes.' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(2000)
  notes?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
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
