export { REQUEST_ID_HEADER, requestIdFrom } from './request-id';
export { echoRequestId, genReqId, handOverToRaw } from './request-context';
export { censor, censoredHeaders, pathOf, REDACT_PATHS, REDACTED } from './redaction';
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
