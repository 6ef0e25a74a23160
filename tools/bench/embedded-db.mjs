#!/usr/bin/env node
// Without DATABASE_URL the bench runs each service on its own embedded PostgreSQL (PGlite),
// exactly as `npm start` does, but hosted in this process (started pinned to the services'
// core) rather than in the bench itself, so its CPU is on the server side of the measurement.
// Answers {type:'embedded-db-ready', urls} over IPC; stops the databases when the IPC closes.
import { startEmbeddedDatabases, stopDatabases } from '../platform/databases.mjs';
import { existingServices } from '../platform/services.mjs';

const [root, dataDir] = process.argv.slice(2);
const services = existingServices(root);
const databases = await startEmbeddedDatabases(root, services, dataDir);
process.send({
  type: 'embedded-db-ready',
  urls: Object.fromEntries(Object.entries(databases).map(([name, database]) => [name, database.url])),
});
process.once('disconnect', () => {
  stopDatabases(databases).finally(() => process.exit(0));
});
