import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags, ApiOperation } from '@nestjs/swagger';
import { ADMINISTRATOR_ROLE, DomainError, ErrorCode } from '@meridian/domain';
import { APP_CONFIG, AppConfig, hasRole, Principal } from '@meridian/platform';
import { ApiErrors } from '../../http/openapi';
import { AuthenticatedEndpoint, CurrentPrincipal, PublicEndpoint } from '../../http/endpoint.decorators';

class AuthConfigDto {
  @ApiProperty({ example: 'https://login.example.org/realms/meridian' }) authority: string;
  @ApiProperty() clientId: string;
  @ApiProperty({ type: [String], example: ['openid', 'profile'] }) scopes: string[];
  @ApiProperty({ example: 'code' }) responseType: string;
  @ApiProperty({ example: true }) usePkce: boolean;
  @ApiProperty({ example: 'S256' }) codeChallengeMethod: string;
  @ApiProperty({
    example: 'api://meridian',
    description:
      'The audience access tokens must carry (the first value of OIDC_AUDIENCE; the client id unless a distinct API audience is configured).',
  })
  audience: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'api://meridian',
    description:
      'The resource indicator (RFC 8707) to send with the authorisation and token requests, when the audience is distinct from the client id; null otherwise.',
  })
  resource: string | null;
}

class UserInfoDto {
  @ApiProperty() authorised: boolean;
  @ApiProperty() isAdministrator: boolean;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['oauth', 'api_key'] }) authMethod: string;
  @ApiPropertyOptional({ nullable: true, format: 'uuid', type: String }) metaverseObjectId: string | null;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiPropertyOptional({ nullable: true, type: String }) message: string | null;
}

@ApiTags('Authentication')
@Controller('api/v1')
export class AuthController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @ApiOperation({ summary: 'Get the sign-in configuration' })
  @Get('auth/config')
  @PublicEndpoint()
  @ApiOkResponse({ type: AuthConfigDto, description: 'What an interactive client needs for the authorisation code flow with PKCE.' })
  @ApiErrors(503)
  authConfig(): AuthConfigDto {
    const oidc = this.config.oidc;
    if (!oidc)
      throw new DomainError(ErrorCode.ServiceUnavailable, 'Single sign-on is not configured (set OIDC_AUTHORITY and OIDC_CLIENT_ID).');
    return {
      authority: oidc.authority,
      clientId: oidc.clientId,
      scopes: oidc.scopes,
      responseType: 'code',
      usePkce: true,
      codeChallengeMethod: 'S256',
      audience: oidc.audiences[0],
      resource: oidc.audiences[0] === oidc.clientId ? null : oidc.audiences[0],
    };
  }

  @ApiOperation({ summary: 'Get the caller' })
  @Get('userinfo')
  @AuthenticatedEndpoint()
  @ApiOkResponse({ type: UserInfoDto })
  userInfo(@CurrentPrincipal() principal: Principal): UserInfoDto {
    if (!principal.authorised) {
      return {
        authorised: false,
        isAdministrator: false,
        name: principal.name,
        authMethod: principal.authMethod,
        metaverseObjectId: null,
        roles: [],
        message: `You are signed in as "${principal.subject ?? principal.name}", but no identity in Meridian matches that subject. Ask an administrator to add you.`,
      };
    }
    return {
      authorised: true,
      isAdministrator: hasRole(principal, ADMINISTRATOR_ROLE),
      name: principal.name,
      authMethod: principal.authMethod,
      metaverseObjectId: principal.metaverseObjectId,
      roles: principal.roles,
      message: null,
    };
  }
}
