import { Body, Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags, ApiOperation } from '@nestjs/swagger';
import { SettingValueType } from '@meridian/domain';
import { Initiator, SettingsService } from '@meridian/application';
import { Allow } from 'class-validator';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';

class SettingDto {
  @ApiProperty({ example: 'Sync.PageSize' }) key: string;
  @ApiProperty({ example: 'Sync' }) category: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: Object.values(SettingValueType) }) valueType: string;
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], example: 1000 }) defaultValue: unknown;
  @ApiPropertyOptional({
    nullable: true,
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
    description: "The administrator's value; null when the default applies.",
  })
  value: unknown;
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], description: 'The value in force.' })
  effectiveValue: unknown;
  @ApiProperty({ description: 'Reflects the environment; PUT and DELETE are refused.' }) isReadOnly: boolean;
  @ApiProperty() isDefault: boolean;
  @ApiPropertyOptional({ nullable: true, type: [String] }) allowedValues: string[] | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) minimum: number | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) maximum: number | null;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) lastUpdatedBy: string | null;
}

class UpdateSettingDto {
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
    example: 500,
    description: 'Integer settings take a number, Boolean true/false, TimeSpan "hh:mm:ss" or "d.hh:mm:ss", Enum one of allowedValues.',
  })
  @Allow()
  value: unknown;
}

@ApiTags('Service settings')
@Controller('api/v1/service-settings')
@AdminEndpoint()
export class ServiceSettingsController {
  constructor(private readonly settings: SettingsService) {}

  @ApiOperation({ summary: 'List service settings' })
  @Get()
  @ApiOkResponse({ type: [SettingDto] })
  list() {
    return this.settings.list();
  }

  @ApiOperation({ summary: 'Get a service setting' })
  @Get(':key')
  @ApiOkResponse({ type: SettingDto })
  @ApiErrors(400, 404)
  get(@Param('key') key: string) {
    return this.settings.get(key);
  }

  @ApiOperation({ summary: 'Set a service setting' })
  @Put(':key')
  @ApiOkResponse({ type: SettingDto, description: 'The setting after the change; the change is recorded as an activity.' })
  @ApiErrors(400, 404)
  set(@Param('key') key: string, @Body() body: UpdateSettingDto, @CurrentInitiator() initiator: Initiator) {
    return this.settings.set(key, body.value, initiator);
  }

  @ApiOperation({ summary: 'Revert a service setting to its default' })
  @Delete(':key')
  @ApiOkResponse({ type: SettingDto, description: 'Reverted to the default; recorded as an activity.' })
  @ApiErrors(400, 404)
  revert(@Param('key') key: string, @CurrentInitiator() initiator: Initiator) {
    return this.settings.revert(key, initiator);
  }
}
