import { serviceFor, serviceProbeFor } from './index';

describe('serviceFor', () => {
  it.each([
    ['/oauth', 'auth-server'],
    ['/oauth/authorize?client_id=x', 'auth-server'],
    ['/oauth/token', 'auth-server'],
    ['/api/oauth/clients/123', 'auth-server'],
    ['/.well-known/oauth-authorization-server', 'auth-server'],
    ['/.well-known/openid-configuration', 'auth-server'],
    ['/.well-known/jwks.json', 'auth-server'],
    ['/', 'resource-server'],
    ['/oauthx', 'resource-server'],
    ['/api/oauthx/1', 'resource-server'],
    ['/api/courses?oauth=/oauth', 'resource-server'],
    ['/.well-known/jwks.json/extra', 'resource-server'],
    ['/.well-known/oauth-protected-resource', 'resource-server'],
  ])('%s is served by %s', (target, service) => {
    expect(serviceFor(target)).toBe(service);
  });
});

describe('serviceProbeFor: the services’ probes through the origin', () => {
  it.each([
    ['/auth-server/healthz', { service: 'auth-server', path: '/healthz' }],
    ['/auth-server/readyz?verbose', { service: 'auth-server', path: '/readyz' }],
    ['/resource-server/healthz', { service: 'resource-server', path: '/healthz' }],
    ['/resource-server/metrics', undefined],
    ['/healthz', undefined],
  ])('%s probes %j', (target, probe) => {
    expect(serviceProbeFor(target)).toEqual(probe);
  });
});
