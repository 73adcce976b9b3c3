import type { Provider } from '@nestjs/common';
import { MetaverseObjectsWriter } from './metaverse-objects.writer';

/** Services of this area, registered by ApplicationModule. */
export const METAVERSE_PROVIDERS: Provider[] = [MetaverseObjectsWriter];
