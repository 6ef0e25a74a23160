export { HealthReportFilter, httpProbe, ReadinessProbes, RedisPing, rememberingReach, type Probe } from './health';
export { ProbesController, type ReadinessChecks } from './probes.controller';
