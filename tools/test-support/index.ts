export { createTestDatabase, type TestDatabase } from './test-database';
export { describeIfPostgres, describeIfRedis, realDatabaseUrl, realRedisUrl } from './real-services';
export { BrowserLikeAgent, type AgentResponse } from './browser-like-agent';
export { freePort } from './free-port';
export { PrivateRedis, waitFor } from './private-redis';
export { TlsDocumentServer, createTestTls, loadTestTls, type TestTls, type TlsHandler } from './test-tls';
