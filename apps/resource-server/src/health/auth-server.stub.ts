// Moved to test/support/auth-server.stub.ts (test doubles live outside src). This re-export only
// keeps src/observability/observability.http.spec.ts compiling until its import points there.
export { AuthServerStub } from '../../test/support/auth-server.stub';
