import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Connector, ConnectorSettingDefinition } from '@meridian/connectors';

export class ConnectorCapabilitiesDto {
  @ApiProperty({ description: 'Can read every object (full import).' }) fullImport: boolean;
  @ApiProperty({ description: 'Can read only the changes since the last import (delta import, with a watermark).' }) deltaImport: boolean;
  @ApiProperty({ description: 'Can write pending exports to the system.' }) export: boolean;
  @ApiProperty({ description: 'Can discover the object types and attributes of the system (import schema).' }) schemaDiscovery: boolean;
  @ApiProperty({ description: "Imports in pages of the run profile's page size." }) paging: boolean;
  @ApiProperty({ description: 'Confirms its own writes, so exported changes need no confirming import.' }) autoConfirmExport: boolean;
}

export class ConnectorSettingDto {
  @ApiProperty({ example: 'filePath', description: "Key of the setting in a connected system's `settings`." }) name: string;
  @ApiProperty({ example: 'File path' }) displayName: string;
  @ApiProperty() description: string;
  @ApiProperty({
    enum: ['String', 'Text', 'Integer', 'Boolean', 'Enum', 'Password', 'FilePath'],
    description: 'FilePath: relative to the connector-files root.',
  })
  type: string;
  @ApiProperty() required: boolean;
  @ApiProperty({ description: 'Secret settings are encrypted at rest and never returned.' }) secret: boolean;
  @ApiPropertyOptional({
    nullable: true,
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
    description: 'Value used when the setting is not given; null when there is none.',
    example: ',',
  })
  defaultValue: string | number | boolean | null;
  @ApiPropertyOptional({
    nullable: true,
    type: [String],
    description: 'Allowed values of an Enum setting (matched ignoring case).',
    example: ['Import', 'Export', 'Bidirectional'],
  })
  allowedValues: string[] | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Smallest allowed value of an Integer setting.' }) minimum:
    number | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Largest allowed value of an Integer setting.' }) maximum:
    number | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Longest allowed text.' }) maxLength: number | null;
}

export class ConnectorDto {
  @ApiProperty({ example: 'File', description: 'The `connectorType` of connected systems using this connector.' }) type: string;
  @ApiProperty({ example: 'File (CSV)' }) displayName: string;
  @ApiProperty() description: string;
  @ApiProperty({
    type: ConnectorCapabilitiesDto,
    description:
      "What the connector can do at most; a connected system's settings may narrow it (e.g. a file in Import mode cannot export).",
  })
  capabilities: ConnectorCapabilitiesDto;
  @ApiProperty({ type: [ConnectorSettingDto], description: 'The settings schema, in display order.' }) settings: ConnectorSettingDto[];
}

function settingDto(s: ConnectorSettingDefinition): ConnectorSettingDto {
  return {
    name: s.name,
    displayName: s.displayName,
    description: s.description,
    type: s.type,
    required: s.required,
    secret: s.secret,
    defaultValue: s.defaultValue ?? null,
    allowedValues: s.allowedValues ? [...s.allowedValues] : null,
    minimum: s.minimum ?? null,
    maximum: s.maximum ?? null,
    maxLength: s.maxLength ?? null,
  };
}

export function connectorDto(c: Connector): ConnectorDto {
  return {
    type: c.type,
    displayName: c.displayName,
    description: c.description,
    capabilities: { ...c.capabilities },
    settings: c.settings.map(settingDto),
  };
}
