import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { NonBlankText, UnlessNull, WhenPresent } from '../../../http/field.validation';
import { IsDateTime } from '../../../http/date-time.validation';

const EXPIRES_MESSAGE = 'expiresAt must be an ISO 8601 date-time.';

const NAME_MESSAGE = 'name is required and must be 1-200 characters.';

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'CI pipeline' })
  @NonBlankText(1, 200, NAME_MESSAGE)
  name: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiPropertyOptional({
    type: [String],
    example: ['Administrator'],
    description: 'Role names; a key without roles is authenticated but not an administrator.',
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  roles?: string[];

  @ApiPropertyOptional({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the key stops working; null or absent: never.',
  })
  @UnlessNull()
  @IsDateTime(EXPIRES_MESSAGE)
  expiresAt?: Date | null;

  @ApiPropertyOptional({ default: true })
  @WhenPresent()
  @IsBoolean({ message: 'isEnabled must be true or false.' })
  isEnabled?: boolean;
}

export class UpdateApiKeyDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @WhenPresent()
  @NonBlankText(1, 200, NAME_MESSAGE)
  name?: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String })
  @UnlessNull()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiPropertyOptional({ type: [String] })
  @WhenPresent()
  @IsArray()
  @IsString({ each: true })
  roles?: string[];

  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String })
  @UnlessNull()
  @IsDateTime(EXPIRES_MESSAGE)
  expiresAt?: Date | null;

  @ApiPropertyOptional()
  @WhenPresent()
  @IsBoolean({ message: 'isEnabled must be true or false.' })
  isEnabled?: boolean;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ example: 'mer_a1B2c3D4', description: 'The first characters of the secret, to tell keys apart.' }) keyPrefix: string;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) expiresAt: string | null;
  @ApiProperty() isExpired: boolean;
  @ApiProperty() isEnabled: boolean;
  @ApiProperty({ description: 'Managed by MERIDIAN_BOOTSTRAP_API_KEY.' }) isBootstrap: boolean;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, type: String }) createdByName: string | null;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUsedAt: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The secret. Shown only in this response: store it now.', example: 'mer_…' })
  key: string;
}
