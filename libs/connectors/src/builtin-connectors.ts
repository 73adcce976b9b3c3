import type { Connector } from './connector.contract';
import { FileConnector } from './file';

/** Every connector shipped with Meridian. */
export function builtInConnectors(): Connector[] {
  return [new FileConnector()];
}
