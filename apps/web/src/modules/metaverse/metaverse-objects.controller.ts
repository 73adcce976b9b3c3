import { Body, Controller, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Initiator, MetaverseObjectsWriter } from '@meridian/application';
import { IsObject, IsString, Length } from 'class-validator';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';

class CreateInternalObjectDto {
  @ApiProperty({ example: 'User', description: 'Metaverse object type name.' })
  @IsString() @Length(1, 200)
  objectType: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { 'Display Name': 'Ada Lovelace', 'Subject Identifier': 'ada' },
    description: 'Attribute name → value (arrays for multi-valued attributes).' })
  @IsObject()
  attributes: Record<string, unknown>;
}

class CreatedObjectDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
}

@ApiTags('Metaverse')
@Controller('api/v1/metaverse/objects')
@AdminEndpoint()
export class MetaverseObjectsController {
  constructor(private readonly writer: MetaverseObjectsWriter) {}

  @Post()
  @ApiCreatedResponse({ type: CreatedObjectDto, description: 'An Internal metaverse object (e.g. an administrator who signs in with OIDC).' })
  @ApiErrors(400)
  create(@Body() body: CreateInternalObjectDto, @CurrentInitiator() initiator: Initiator) {
    return this.writer.createInternal(body.objectType, body.attributes, initiator);
  }
}
