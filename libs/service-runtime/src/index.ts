export { completeServiceApp, createServiceApp, listenService, type ServiceAppDefinition, type ServiceAppOptions } from './service-app';
export { runService, type ServiceProcess } from './run-service';
