import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsObject, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { ConnectedSystemDeletionOutcome, UNRESOLVED_REFERENCE_HANDLINGS, UnresolvedReferenceHandling } from '@meridian/domain';
import { OneOfIgnoringCase, UnlessNull, WhenPresent } from '../../../http/field.validation';

const OUTCOMES = Object.values(ConnectedSystemDeletionOutcome);

const NAME_MESSAGE = 'name is required and must be 1-200 characters.';
const DESCRIPTION_MESSAGE = 'description must be text of at most 2000 characters.';
const CONNECTOR_TYPE_MESSAGE = 'connectorType is required.';
const SETTINGS_MESSAGE = 'settings must be an object of setting name to value.';
const HANDLING_MESSAGE = `unresolvedReferenceHandling must be one of ${UNRESOLVED_REFERENCE_HANDLINGS.join(', ')}.`;

const SETTINGS_DOC =
  "Connector settings by name (see GET /api/v1/synchronisation/connectors for each connector's schema), validated against the " +
  "connector's settings schema; an invalid or unknown setting is a 400 VALIDATION_ERROR naming `settings.<name>`. Secret settings (e.g. passwords) " +
  'are encrypted at rest and never returned.';

export class CreateConnectedSystemDto {
  // Type and length only: a blank name is refused by the service, in the same response as the connector's verdict on the settings.
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'HR system', description: 'Unique, ignoring case.' })
  @IsString({ message: NAME_MESSAGE })
  @Length(1, 200, { message: NAME_MESSAGE })
  name: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String })
  @UnlessNull()
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(2000, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ApiProperty({ example: 'File', description: 'A connector type from GET /api/v1/synchronisation/connectors; cannot be changed later.' })
  @IsString({ message: CONNECTOR_TYPE_MESSAGE })
  @Matches(/\S/, { message: CONNECTOR_TYPE_MESSAGE })
  @MaxLength(50)
  connectorType: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], nullable: true },
    example: { filePath: 'hr/people.csv', delimiter: ',', mode: 'Import' },
    description: SETTINGS_DOC,
  })
  @UnlessNull()
  @IsObject({ message: SETTINGS_MESSAGE })
  settings?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    enum: UnresolvedReferenceHandling,
    default: UnresolvedReferenceHandling.Warn,
    description: 'What an import does with a reference value it cannot resolve.',
  })
  @WhenPresent()
  @OneOfIgnoringCase(UNRESOLVED_REFERENCE_HANDLINGS, HANDLING_MESSAGE)
  unresolvedReferenceHandling?: UnresolvedReferenceHandling;
}

export class UpdateConnectedSystemDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @WhenPresent()
  @IsString({ message: NAME_MESSAGE })
  @Length(1, 200, { message: NAME_MESSAGE })
  name?: string;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String })
  @UnlessNull()
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(2000, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  // Whether it is the current type needs the stored system: the service refuses any other value, null included.
  @ApiPropertyOptional({ type: String, description: 'Immutable: only the current value is accepted.' })
  @IsOptional()
  @IsString()
  connectorType?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], nullable: true },
    description:
      `${SETTINGS_DOC} Partial: settings not named keep their value. A secret that is omitted (or sent as "") keeps its stored value; ` +
      'a secret sent as null is cleared (refused when the setting is required).',
  })
  @UnlessNull()
  @IsObject({ message: SETTINGS_MESSAGE })
  settings?: Record<string, unknown> | null;

  @ApiPropertyOptional({ enum: UnresolvedReferenceHandling })
  @WhenPresent()
  @OneOfIgnoringCase(UNRESOLVED_REFERENCE_HANDLINGS, HANDLING_MESSAGE)
  unresolvedReferenceHandling?: UnresolvedReferenceHandling;
}

export class ConnectorCapabilitiesDto {
  @ApiProperty() fullImport: boolean;
  @ApiProperty() deltaImport: boolean;
  @ApiProperty() export: boolean;
  @ApiProperty() schemaDiscovery: boolean;
  @ApiProperty() paging: boolean;
  @ApiProperty() autoConfirmExport: boolean;
}

export class ConnectedSystemSummaryDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ example: 'File' }) connectorType: string;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
  @ApiProperty() objectTypeCount: number;
  @ApiProperty({ description: 'Connector space objects (CSOs) of the system.' }) objectCount: number;
  @ApiProperty() runProfileCount: number;
}

export class ConnectedSystemDto extends ConnectedSystemSummaryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Non-secret settings by name (defaults filled in). Secret settings never appear here.',
  })
  settings: Record<string, unknown>;

  @ApiProperty({
    type: [String],
    example: ['password'],
    description: 'Names of the secret settings that hold a value; the values are write-only.',
  })
  secretSettingsSet: string[];

  @ApiProperty({ enum: UnresolvedReferenceHandling }) unresolvedReferenceHandling: string;
  @ApiProperty({ description: 'A configuration change means the next synchronisation must be a full one.' }) fullSyncRequired: boolean;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastSchemaImport: string | null;

  @ApiPropertyOptional({
    type: ConnectorCapabilitiesDto,
    nullable: true,
    description: 'What the connector can do with these settings; null if the connector is not available.',
  })
  capabilities: ConnectorCapabilitiesDto | null;

  @ApiPropertyOptional({
    nullable: true,
    format: 'uuid',
    type: String,
    description: 'Set while the system is queued for deletion: the deletion activity. The system can then no longer be changed or run.',
  })
  deletionActivityId: string | null;
}

export class DeleteConnectedSystemQueryDto {
  @ApiPropertyOptional({ default: false, description: "Also delete the change history of the system's objects." })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'deleteChangeHistory must be true or false.' })
  deleteChangeHistory?: boolean;
}

export class ConnectedSystemDeletionResultDto {
  @ApiProperty({ description: 'The deletion was carried out or initiated.' }) success: boolean;
  @ApiProperty({ enum: OUTCOMES }) outcome: string;
  @ApiPropertyOptional({ nullable: true, type: String }) errorMessage: string | null;
  @ApiPropertyOptional({
    nullable: true,
    format: 'uuid',
    type: String,
    description:
      'When queued: the background task (the BullMQ job id is `delete-connected-system-<workerTaskId>`; it equals the activity id).',
  })
  workerTaskId: string | null;
  @ApiPropertyOptional({ nullable: true, format: 'uuid', type: String }) activityId: string | null;
}

export class ConnectedSystemDeletionPreviewDto {
  @ApiProperty() connectedSystemId: number;
  @ApiProperty() connectedSystemName: string;
  @ApiProperty() connectedSystemObjectCount: number;
  @ApiProperty() objectTypeCount: number;
  @ApiProperty() attributeCount: number;
  @ApiProperty() runProfileCount: number;
  @ApiProperty() syncRuleCount: number;
  @ApiProperty({ description: 'Metaverse objects joined to this system: they lose this connector.' }) joinedMetaverseObjectCount: number;
  @ApiProperty({
    description: 'Of those, objects with no connector left afterwards; their deletion rules apply at the next synchronisation.',
  })
  metaverseObjectsLeftWithoutConnectorsCount: number;
  @ApiProperty({
    type: [String],
    description: 'Metaverse object types whose deletion rule names this system as a trigger (the system is removed from them).',
  })
  deletionRuleObjectTypes: string[];
  @ApiProperty({
    type: [String],
    format: 'uuid',
    description: 'Run-profile activities of the system in progress; deletion waits for them.',
  })
  activeRunActivityIds: string[];
  @ApiProperty({ example: 1000, description: 'Systems with at most this many connector space objects are deleted immediately.' })
  immediateDeletionMaxObjects: number;
  @ApiProperty({ enum: OUTCOMES.slice(0, 3) }) expectedOutcome: string;
  @ApiProperty() runsInBackground: boolean;
  @ApiPropertyOptional({ nullable: true, format: 'uuid', type: String, description: 'Set when a deletion is already queued.' })
  deletionActivityId: string | null;
}

export class TestConnectionResultDto {
  @ApiProperty() success: boolean;
  @ApiProperty({ example: 'The file hr/people.csv is readable (12 columns).' }) message: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true }) details: Record<string, unknown> | null;
}

export class SchemaAttributeRefDto {
  @ApiProperty() objectType: string;
  @ApiProperty() attribute: string;
}

export class SchemaAttributeChangeDto extends SchemaAttributeRefDto {
  @ApiProperty({ type: [String], example: ['type'] }) fields: string[];
}

export class SchemaImportResultDto {
  @ApiProperty({ format: 'uuid' }) activityId: string;
  @ApiProperty() objectTypesAdded: number;
  @ApiProperty() attributesAdded: number;
  @ApiProperty({ description: 'Existing attributes whose connector-owned definition changed, or that were flagged or restored.' })
  attributesUpdated: number;
  @ApiProperty({ type: [String], description: 'Object types no longer in the schema (kept, flagged presentInSchema false).' })
  objectTypesRemoved: string[];
  @ApiProperty({ type: [SchemaAttributeRefDto], description: 'Attributes no longer in the schema (kept, flagged presentInSchema false).' })
  attributesRemoved: SchemaAttributeRefDto[];
  @ApiProperty({ type: [String] }) objectTypesRestored: string[];
  @ApiProperty({ type: [SchemaAttributeRefDto] }) attributesRestored: SchemaAttributeRefDto[];
  @ApiProperty({ type: [SchemaAttributeChangeDto] }) attributesChanged: SchemaAttributeChangeDto[];
  @ApiProperty() objectTypeCount: number;
  @ApiProperty() fullSyncRequired: boolean;
  @ApiProperty({ type: [String] }) warnings: string[];
}
