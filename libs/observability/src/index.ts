export {
  DEFAULT_OPERATIONS,
  envProblems,
  hostEnv,
  LOG_LEVELS,
  operationsConfig,
  operationsEnv,
  pinoLevelOf,
  portEnv,
  trustedProxyListSchema,
  validateTrustedProxies,
  type LogLevel,
  type OperationsConfig,
} from './operations-config';
export { REQUEST_ID_HEADER, requestIdFrom } from './request-id';
export { echoRequestId, genReqId, handOverToRaw } from './request-context';
export { censor, censoredHeaders, pathOf, REDACT_PATHS, REDACTED } from './redaction';
export { isOperationalPath, OPERATIONAL_PATHS } from './operational-paths';
export { defaultLogDestination, humanLogStream, humanMessage, LOG_FORMATS, logFormat, type LogFormat } from './log-format';
export {
  baseLoggerOptions,
  currentRequestId,
  fastifyLoggerOptions,
  nestLoggerParams,
  requestLineIsDetailed,
  REQUEST_LOGGING,
  requestLogging,
  requestLoggingHook,
  requestLogLevel,
  type LoggingOptions,
  type RequestLoggingMiddleware,
} from './http-logging';
export { instrumentHttp, METRICS_CONTENT_TYPE, ServiceMetrics, UNMATCHED_ROUTE } from './metrics';
export { HealthReportFilter, httpProbe, ReadinessProbes, RedisPing, rememberingReach, type Probe } from './health';
export { ProbesController, type ReadinessChecks } from './probes.controller';
export { armShutdownDeadline, type ShutdownLogger } from './shutdown';
export { beginClosing, closeConnectionsWhenIdle, isClosing } from './graceful-close';
export {
  describeRelease,
  IDLE_RELEASE_AFTER_MS,
  lastResortCollection,
  releaseMemoryWhenIdle,
  type IdleMemoryReleaseOptions,
  type MemoryRelease,
} from './idle-memory-release';
