import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiMalformedRequest } from '../../http/openapi';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { ReadinessService } from '@meridian/application';
import { APP_CONFIG, AppConfig } from '@meridian/platform';
import type { Response } from 'express';
import { PublicEndpoint } from '../../http/endpoint.decorators';

class StatusDto {
  @ApiProperty({ example: 'healthy' }) status: string;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
}

class ReadinessDto extends StatusDto {
  @ApiPropertyOptional({ type: [String], description: 'Why the service is not ready (database, migrations, Redis, maintenance mode).' })
  reasons?: string[];
  @ApiPropertyOptional({ description: 'Each dependency: ok, failed or skipped.', type: 'object', additionalProperties: { type: 'string' } })
  checks?: Record<string, string>;
}

class VersionDto {
  @ApiProperty({ example: 'Meridian' }) product: string;
  @ApiProperty({ example: '0.1.0' }) version: string;
}

@ApiTags('Health')
@Controller('api/v1/health')
export class HealthController {
  constructor(
    private readonly readiness: ReadinessService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @ApiOperation({ summary: 'Check that the service is up' })
  @Get()
  @PublicEndpoint()
  @ApiMalformedRequest()
  @ApiOkResponse({ type: StatusDto, description: 'The web process is up.' })
  health(): StatusDto {
    return { status: 'healthy', timestamp: new Date().toISOString() };
  }

  @ApiOperation({ summary: 'Check that the service can take requests' })
  @Get('ready')
  @PublicEndpoint()
  @ApiMalformedRequest()
  @HttpCode(200)
  @ApiOkResponse({ type: ReadinessDto, description: '`ready`: database and Redis reachable, migrations applied, maintenance mode off.' })
  @ApiResponse({ status: 503, type: ReadinessDto, description: '`not_ready` with the reasons.' })
  async ready(@Res({ passthrough: true }) res: Response): Promise<ReadinessDto> {
    const result = await this.readiness.check();
    if (!result.ready) res.status(503);
    return {
      status: result.ready ? 'ready' : 'not_ready',
      timestamp: new Date().toISOString(),
      reasons: result.reasons,
      checks: result.checks,
    };
  }

  @ApiOperation({ summary: 'Check that the process is alive' })
  @Get('live')
  @PublicEndpoint()
  @ApiMalformedRequest()
  @ApiOkResponse({ type: StatusDto, description: 'The process is alive (no dependency checks).' })
  live(): StatusDto {
    return { status: 'alive', timestamp: new Date().toISOString() };
  }

  @ApiOperation({ summary: 'Get the product name and version' })
  @Get('version')
  @PublicEndpoint()
  @ApiMalformedRequest()
  @ApiOkResponse({ type: VersionDto })
  version(): VersionDto {
    return { product: 'Meridian', version: this.config.version };
  }
}
