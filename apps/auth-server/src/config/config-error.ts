/** A missing or malformed setting: the service stops at start with this message. */
export class ConfigError extends Error {}
