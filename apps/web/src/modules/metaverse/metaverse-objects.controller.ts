import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Initiator, MetaverseObjectsQuery, MetaverseObjectsWriter } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  CreateMetaverseObjectDto,
  MetaverseObjectDetailDto,
  MetaverseObjectListQueryDto,
  MetaverseObjectPageDto,
  UpdateMetaverseObjectDto,
} from './dto/metaverse-object.dto';

@ApiTags('Metaverse')
@Controller('api/v1/metaverse/objects')
@AdminEndpoint()
export class MetaverseObjectsController {
  constructor(
    private readonly query: MetaverseObjectsQuery,
    private readonly writer: MetaverseObjectsWriter,
  ) {}

  @ApiOperation({ summary: 'List metaverse objects' })
  @Get()
  @ApiOkResponse({
    type: MetaverseObjectPageDto,
    description: 'Ordered by id (every filter is then an index walk; see docs/metaverse.md).',
  })
  @ApiErrors(400)
  list(@Query() query: MetaverseObjectListQueryDto) {
    return this.query.list(query);
  }

  @ApiOperation({ summary: 'Get a metaverse object' })
  @Get(':id')
  @ApiOkResponse({ type: MetaverseObjectDetailDto })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.query.get(id);
  }

  @ApiOperation({ summary: 'Create a metaverse object' })
  @Post()
  @ApiCreatedResponse({
    type: MetaverseObjectDetailDto,
    description: 'An Internal metaverse object (e.g. an administrator who signs in with OIDC).',
  })
  @ApiErrors(400)
  create(@Body() body: CreateMetaverseObjectDto, @CurrentInitiator() initiator: Initiator) {
    return this.writer.create(body, initiator);
  }

  @ApiOperation({ summary: 'Update a metaverse object' })
  @Put(':id')
  @ApiOkResponse({
    type: MetaverseObjectDetailDto,
    description: 'Merges attribute values into an Internal object; Projected objects are refused (400).',
  })
  @ApiErrors(400, 404)
  update(@Param('id', UuidPipe) id: string, @Body() body: UpdateMetaverseObjectDto, @CurrentInitiator() initiator: Initiator) {
    return this.writer.update(id, body.attributes, initiator);
  }

  @ApiOperation({ summary: 'Delete a metaverse object' })
  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted. Internal objects only (Projected: 400); never the last Administrator (409).' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator): Promise<void> {
    await this.writer.remove(id, initiator);
  }
}
