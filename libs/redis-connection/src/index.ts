export { withDeadline } from './deadline';
export { CONNECT_TIMEOUT_MS, RedisConnection, reconnectDelay } from './redis-connection';
