export { armShutdownDeadline, type ShutdownLogger } from './shutdown';
export { beginClosing, closeConnectionsWhenIdle, isClosing } from './graceful-close';
export {
  describeRelease,
  IDLE_RELEASE_AFTER_MS,
  lastResortCollection,
  releaseMemoryWhenIdle,
  type IdleMemoryReleaseOptions,
  type MemoryRelease,
} from './idle-memory-release';
