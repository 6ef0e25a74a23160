export { completeServiceApp, createServiceApp, listenService, type ServiceAppDefinition, type ServiceAppOptions } from './service-app';
export { registerCors } from './cors';
export { type DirectRoute, directRoute, serveDirectly } from './direct-routes';
export { runService, type ServiceProcess } from './run-service';
