import { Injectable, OnApplicationBootstrap, RequestMethod } from '@nestjs/common';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_KEY, RouteAccess } from '@meridian/platform';

export interface RouteInfo {
  method: string;
  path: string;
  pattern: RegExp;
  access: RouteAccess | undefined;
  controller: string;
  handler: string;
}

const join = (...parts: string[]) =>
  `/${parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/** Every HTTP route the app registers, with its access rule: for 405 answers and the route-walk test. */
@Injectable()
export class RouteCatalog implements OnApplicationBootstrap {
  routes: RouteInfo[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const routes: RouteInfo[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const base = [this.reflector.get<string | string[]>(PATH_METADATA, metatype) ?? ''].flat();
      const proto = Object.getPrototypeOf(instance);
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const handler = proto[name];
        const paths = this.reflector.get<string | string[] | undefined>(PATH_METADATA, handler);
        const method = this.reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
        if (paths === undefined || method === undefined) continue;
        const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_KEY, [handler, metatype]);
        for (const b of base) {
          for (const p of [paths].flat()) {
            const path = join(b, p);
            const pattern = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
            routes.push({ method: RequestMethod[method], path, pattern, access, controller: metatype.name, handler: name });
          }
        }
      }
    }
    this.routes = routes;
  }

  /** Methods registered for a concrete path (for the Allow header of a 405). */
  methodsFor(path: string): string[] {
    return [...new Set(this.routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  }
}
