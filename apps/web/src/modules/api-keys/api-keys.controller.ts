import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { ApiKeysService, Initiator } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto, UpdateApiKeyDto } from './dto/api-key.dto';

@ApiTags('API keys')
@Controller('api/v1/apikeys')
@AdminEndpoint()
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @ApiOperation({ summary: 'List API keys' })
  @Get()
  @ApiOkResponse({ type: [ApiKeyDto] })
  list() {
    return this.keys.list();
  }

  @ApiOperation({ summary: 'Create an API key' })
  @Post()
  @ApiCreatedResponse({ type: CreatedApiKeyDto, description: 'The key, with its secret (shown once).' })
  @ApiErrors(400)
  create(@Body() body: CreateApiKeyDto, @CurrentInitiator() initiator: Initiator) {
    return this.keys.create(body, initiator);
  }

  @ApiOperation({ summary: 'Get an API key' })
  @Get(':id')
  @ApiOkResponse({ type: ApiKeyDto, description: 'The key without its secret.' })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.keys.get(id);
  }

  @ApiOperation({ summary: 'Update an API key' })
  @Put(':id')
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors(400, 404, 409)
  update(@Param('id', UuidPipe) id: string, @Body() body: UpdateApiKeyDto, @CurrentInitiator() initiator: Initiator) {
    return this.keys.update(id, body, initiator);
  }

  @ApiOperation({ summary: 'Delete an API key' })
  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator): Promise<void> {
    await this.keys.remove(id, initiator);
  }
}
