export { completeServiceApp, createServiceApp, listenService, type ServiceAppDefinition, type ServiceAppOptions } from './service-app';
export { registerCors } from './cors';
export { runService, type ServiceProcess } from './run-service';
