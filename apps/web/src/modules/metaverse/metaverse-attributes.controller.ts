import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Initiator, MetaverseAttributesService } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  AttributeListQueryDto,
  CreateMetaverseAttributeDto,
  MetaverseAttributeDto,
  UpdateMetaverseAttributeDto,
} from './dto/metaverse-schema.dto';

@ApiTags('Metaverse')
@Controller('api/v1/metaverse/attributes')
@AdminEndpoint()
export class MetaverseAttributesController {
  constructor(private readonly attributes: MetaverseAttributesService) {}

  @ApiOperation({ summary: 'List metaverse attributes' })
  @Get()
  @ApiOkResponse({ type: [MetaverseAttributeDto], description: 'Attributes by name.' })
  @ApiErrors(400)
  list(@Query() query: AttributeListQueryDto) {
    return this.attributes.list(query.objectTypeId);
  }

  @ApiOperation({ summary: 'Get a metaverse attribute' })
  @Get(':id')
  @ApiOkResponse({ type: MetaverseAttributeDto })
  @ApiErrors(400, 404)
  get(@Param('id', IntIdPipe) id: number) {
    return this.attributes.get(id);
  }

  @ApiOperation({ summary: 'Create a metaverse attribute' })
  @Post()
  @ApiCreatedResponse({ type: MetaverseAttributeDto, description: 'A custom attribute.' })
  @ApiErrors(400)
  create(@Body() body: CreateMetaverseAttributeDto, @CurrentInitiator() initiator: Initiator) {
    return this.attributes.create(body, initiator);
  }

  @ApiOperation({ summary: 'Update a metaverse attribute' })
  @Put(':id')
  @ApiOkResponse({ type: MetaverseAttributeDto })
  @ApiErrors(400, 404)
  update(@Param('id', IntIdPipe) id: number, @Body() body: UpdateMetaverseAttributeDto, @CurrentInitiator() initiator: Initiator) {
    return this.attributes.update(id, body, initiator);
  }

  @ApiOperation({ summary: 'Delete a metaverse attribute' })
  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({
    description: 'Deleted. Custom attributes only (built-ins: 400), and only when no object holds a value and no sync rule uses it (409).',
  })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', IntIdPipe) id: number, @CurrentInitiator() initiator: Initiator): Promise<void> {
    await this.attributes.remove(id, initiator);
  }
}
