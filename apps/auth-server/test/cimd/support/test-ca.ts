// The test certificate authority is the one of tools/test-support (also used by the platform e2e).
export { createTestTls as createTestCertificates, type TestTls as TestCertificates } from '../../../../../tools/test-support/test-tls';
