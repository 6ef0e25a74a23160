export { completeServiceApp, createServiceApp, listenService, type ServiceAppDefinition, type ServiceAppOptions } from './service-app';
export { registerCors } from './cors';
export { runService, type ServiceProcess } from './run-service';
export { closeService, type ClosingOptions } from './closing';
export { INPUT_LIMITS } from './input-limits';
export { RefusedJsonBodyError } from './json-body';
export { STRICT_TRANSPORT_SECURITY } from './strict-transport-security';
