import { DomainError } from '@meridian/domain';
import type { Connector } from './connector.contract';

/** The connectors this build of Meridian knows, by type name (case-insensitive). */
export class ConnectorRegistry {
  private readonly byType = new Map<string, Connector>();

  constructor(connectors: readonly Connector[]) {
    for (const c of connectors) this.byType.set(c.type.toLowerCase(), c);
  }

  list(): Connector[] {
    return [...this.byType.values()];
  }

  find(type: string): Connector | undefined {
    return this.byType.get(type.toLowerCase());
  }

  /** The connector of that type, or a VALIDATION_ERROR on `connectorType`. */
  require(type: string): Connector {
    const c = this.find(type);
    if (!c)
      throw DomainError.validation(
        'connectorType',
        `"${type}" is not a connector; available: ${this.list()
          .map((x) => x.type)
          .join(', ')}.`,
      );
    return c;
  }
}
