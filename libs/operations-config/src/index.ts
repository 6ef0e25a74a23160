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
