import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Initiator, MetaverseObjectTypesService } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  CreateMetaverseObjectTypeDto,
  MetaverseObjectTypeDetailDto,
  MetaverseObjectTypeDto,
  UpdateMetaverseObjectTypeDto,
} from './dto/metaverse-schema.dto';

@ApiTags('Metaverse')
@Controller('api/v1/metaverse/object-types')
@AdminEndpoint()
export class MetaverseObjectTypesController {
  constructor(private readonly types: MetaverseObjectTypesService) {}

  @ApiOperation({ summary: 'List metaverse object types' })
  @Get()
  @ApiOkResponse({ type: [MetaverseObjectTypeDto], description: 'Built-in User and Group, then custom types, in id order.' })
  list() {
    return this.types.list();
  }

  @ApiOperation({ summary: 'Get a metaverse object type' })
  @Get(':id')
  @ApiOkResponse({ type: MetaverseObjectTypeDetailDto, description: 'The object type with its attributes.' })
  @ApiErrors(400, 404)
  get(@Param('id', IntIdPipe) id: number) {
    return this.types.get(id);
  }

  @ApiOperation({ summary: 'Create a metaverse object type' })
  @Post()
  @ApiCreatedResponse({ type: MetaverseObjectTypeDetailDto, description: 'A custom object type.' })
  @ApiErrors(400)
  create(@Body() body: CreateMetaverseObjectTypeDto, @CurrentInitiator() initiator: Initiator) {
    return this.types.create(body, initiator);
  }

  @ApiOperation({ summary: 'Update a metaverse object type' })
  @Put(':id')
  @ApiOkResponse({
    type: MetaverseObjectTypeDetailDto,
    description: 'Updates the deletion rule (any type) and, for custom types, name, description and attributes.',
  })
  @ApiErrors(400, 404)
  update(@Param('id', IntIdPipe) id: number, @Body() body: UpdateMetaverseObjectTypeDto, @CurrentInitiator() initiator: Initiator) {
    return this.types.update(id, body, initiator);
  }

  @ApiOperation({ summary: 'Delete a metaverse object type' })
  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted. Custom types only (built-ins: 400), and only without objects and sync rules (409).' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', IntIdPipe) id: number, @CurrentInitiator() initiator: Initiator): Promise<void> {
    await this.types.remove(id, initiator);
  }
}
