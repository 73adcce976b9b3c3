// Entry point for the TypeORM CLI: `typeorm migration:show -d libs/persistence/dist/data-source.js`.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source.options';

export default new DataSource(
  dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/meridian', 'meridian-cli', 1),
);
