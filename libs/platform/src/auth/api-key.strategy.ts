import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { HeaderAPIKeyStrategy } from 'passport-headerapikey';
import { Principal, PrincipalResolver } from './principal';

export const API_KEY_HEADER = 'X-Api-Key';

/** passport strategy for the `X-Api-Key` header; the resolver checks hash, expiry and enablement. */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
  constructor(private readonly resolver: PrincipalResolver) {
    super({ header: API_KEY_HEADER, prefix: '' }, false);
  }

  validate(apiKey: string): Promise<Principal> {
    return this.resolver.resolveApiKey(apiKey);
  }
}
