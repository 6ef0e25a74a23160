import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_PATHS, OPERATIONAL_PATHS } from '@platform/route-table';
import type { Env, Instruction } from 'dockerfile-ast';
import type { z } from 'zod';

/**
 * What the manifests are held to, taken from the platform's own sources: each service's
 * environment schema and loader, its port and probe paths, the memory floor compose is held to,
 * the nginx renderer. The modules are loaded by path at run time: the module boundaries
 * (eslint.config.mjs) let no tool import an app or another tool, and these checks must read the
 * real schemas, not a copy that could drift from them.
 */
export const WORKSPACE = join(__dirname, '../../..');

type AuthConfigModule = typeof import('../../../apps/auth-server/src/config/auth-config');
type LimitsConfigModule = typeof import('../../../apps/auth-server/src/config/limits-config');
type CimdConfigModule = typeof import('../../../apps/auth-server/src/config/cimd-config');
type ResourceConfigModule = typeof import('../../../apps/resource-server/src/config/resource-config');
type PricingModule = typeof import('../../../apps/resource-server/src/documents/pricing');
type GatewayConfigModule = typeof import('../../../apps/gateway/src/config');
type LoggingModule = typeof import('../../../libs/logging/src');
type OperationsConfigModule = typeof import('../../../libs/operations-config/src');
type ContainerAppsModule = typeof import('../../containers/src/apps');
type DockerfileRulesModule = typeof import('../../containers/src/dockerfile-rules');
type ComposeRulesModule = typeof import('../../containers/src/compose-rules');
type NginxConfModule = typeof import('../../containers/src/nginx-conf');
type MigrateModule = { planFromEnv(env: Record<string, string | undefined>): unknown };

/** A module of the workspace, by its path from the workspace root. */
export function loadWorkspaceModule<T>(path: string): T {
  return require(join(WORKSPACE, path)) as T;
}

export const readWorkspaceFile = (path: string) => readFileSync(join(WORKSPACE, path), 'utf8');

/** The platform's images, by the last segment of their repository name (whatever the registry). */
export type PlatformImage = 'auth-server' | 'resource-server' | 'gateway' | 'nginx-gateway' | 'migrate';
export const PLATFORM_IMAGES: readonly PlatformImage[] = ['auth-server', 'resource-server', 'gateway', 'nginx-gateway', 'migrate'];

/** What one image's process reads and answers. */
export interface ImageDefinition {
  image: PlatformImage;
  /** Every variable the process reads: its schemas', the few read elsewhere, and its image's ENV. */
  variables: ReadonlySet<string>;
  /** The final stage's ENV of its Dockerfile: what the container has before the manifest adds any. */
  imageEnv: Readonly<Record<string, string>>;
  /** What is wrong with one value of a variable, as the process would read it; undefined when fine. */
  valueProblem(name: string, value: string): string | undefined;
  /** What is wrong with the whole environment, as the process loads it at start; undefined when it starts. */
  configProblem(env: Record<string, string>): string | undefined;
  /** The port it listens on: the variable that sets it (none: fixed) and the port without it. */
  port: { variable?: string; fallback: number };
  /** Its HTTP probes (a long-running server) or none (a job). */
  probes?: { liveness: string; readiness: string };
  /** Where Prometheus reads its metrics, when it has any. */
  metricsPath?: string;
  /** A Node process whose SIGTERM deadline is SHUTDOWN_TIMEOUT_MS: the deadline in an environment. */
  shutdownTimeoutMs?(env: Record<string, string>): number;
  /** How long it serves on after SIGTERM before closing (SHUTDOWN_DRAIN_MS), in an environment. */
  shutdownDrainMs?(env: Record<string, string>): number;
  /** The gateway: how often it resolves its upstreams' names again (GATEWAY_DNS_REFRESH_MS), in an environment. */
  upstreamRefreshMs?(env: Record<string, string>): number;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A zod issue list as one line. */
function issuesOf(result: z.ZodSafeParseResult<unknown>): string | undefined {
  return result.success ? undefined : result.error.issues.map((issue) => issue.message).join('; ');
}

/** The ENV of a Dockerfile's final stage. */
function finalStageEnv(dockerfile: string, rules: DockerfileRulesModule): Record<string, string> {
  const stages = rules.parseStages(readWorkspaceFile(dockerfile));
  const final = stages[stages.length - 1];
  const env: Record<string, string> = {};
  for (const instruction of final?.instructions ?? []) {
    if ((instruction as Instruction).getKeyword() !== 'ENV') continue;
    for (const property of (instruction as Env).getProperties()) env[property.getName()] = property.getValue() ?? '';
  }
  return env;
}

/** The variables a schema object reads, and a check of one value by that variable's own field. */
function schemaReader(schemas: z.ZodObject[]) {
  const fields = new Map<string, z.ZodType>();
  for (const schema of schemas) for (const [name, field] of Object.entries(schema.shape)) fields.set(name, field as z.ZodType);
  return {
    names: [...fields.keys()],
    valueProblem: (name: string, value: string) => {
      const field = fields.get(name);
      return field ? issuesOf(field.safeParse(value)) : undefined;
    },
  };
}

/** configProblem of a loader that throws a message naming each bad variable. */
const problemOfLoading = (load: (env: Record<string, string>) => unknown) => (env: Record<string, string>) => {
  try {
    load(env);
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
};

/** Variables a process reads and a check of their values, beside its schema. */
interface Extra {
  name: string;
  valueProblem(value: string): string | undefined;
}

export interface PlatformDefinitions {
  images: Readonly<Record<PlatformImage, ImageDefinition>>;
  /** The least memory limit of a Node service container (the floor compose is held to), in MiB. */
  nodeMemoryFloorMiB: number;
  /** The Node services' images. */
  nodeImages: readonly PlatformImage[];
}

/** Everything the rules need to know about the platform, read from its sources. */
export function loadPlatformDefinitions(): PlatformDefinitions {
  const auth = loadWorkspaceModule<AuthConfigModule>('apps/auth-server/src/config/auth-config');
  const limits = loadWorkspaceModule<LimitsConfigModule>('apps/auth-server/src/config/limits-config');
  const cimd = loadWorkspaceModule<CimdConfigModule>('apps/auth-server/src/config/cimd-config');
  const resource = loadWorkspaceModule<ResourceConfigModule>('apps/resource-server/src/config/resource-config');
  const pricing = loadWorkspaceModule<PricingModule>('apps/resource-server/src/documents/pricing');
  const gateway = loadWorkspaceModule<GatewayConfigModule>('apps/gateway/src/config');
  const logging = loadWorkspaceModule<LoggingModule>('libs/logging/src');
  const operations = loadWorkspaceModule<OperationsConfigModule>('libs/operations-config/src');
  const { APP_IMAGES, MIGRATE_DOCKERFILE } = loadWorkspaceModule<ContainerAppsModule>('tools/containers/src/apps');
  const dockerfileRules = loadWorkspaceModule<DockerfileRulesModule>('tools/containers/src/dockerfile-rules');
  const { APP_MEMORY_FLOOR_MIB } = loadWorkspaceModule<ComposeRulesModule>('tools/containers/src/compose-rules');
  const { COMPOSE_NGINX_OPTIONS } = loadWorkspaceModule<NginxConfModule>('tools/containers/src/nginx-conf');
  const migrate = loadWorkspaceModule<MigrateModule>('tools/containers/migrate.cjs');

  // LOG_FORMAT is read by every Node service's logger (libs/logging log-format.ts), outside the schemas.
  const logFormat: Extra = {
    name: 'LOG_FORMAT',
    valueProblem: (value) => ((logging.LOG_FORMATS as readonly string[]).includes(value) ? undefined : `expected one of ${logging.LOG_FORMATS.join(', ')}`),
  };
  const pricingFile: Extra = { name: pricing.PRICING_FILE_ENV, valueProblem: (value) => (value ? undefined : 'expected a file path') };

  const shutdownTimeoutMs = (env: Record<string, string>) => operations.operationsEnv.SHUTDOWN_TIMEOUT_MS.parse(env['SHUTDOWN_TIMEOUT_MS']);
  const shutdownDrainMs = (env: Record<string, string>) => operations.operationsEnv.SHUTDOWN_DRAIN_MS.parse(env['SHUTDOWN_DRAIN_MS']);
  const upstreamRefreshMs = (env: Record<string, string>) => gateway.EnvSchema.shape.GATEWAY_DNS_REFRESH_MS.parse(env['GATEWAY_DNS_REFRESH_MS']);

  const nodeService = (
    image: 'auth-server' | 'resource-server' | 'gateway',
    schemas: z.ZodObject[],
    extras: Extra[],
    load: (env: Record<string, string>) => unknown,
    metrics: boolean,
  ): ImageDefinition => {
    const spec = APP_IMAGES.find((app) => app.app === image);
    if (!spec) throw new Error(`tools/containers/src/apps.ts has no image ${image}`);
    const reader = schemaReader(schemas);
    const imageEnv = finalStageEnv(spec.dockerfile, dockerfileRules);
    return {
      image,
      variables: new Set([...reader.names, ...extras.map((extra) => extra.name), ...Object.keys(imageEnv)]),
      imageEnv,
      valueProblem: (name, value) => extras.find((extra) => extra.name === name)?.valueProblem(value) ?? reader.valueProblem(name, value),
      configProblem: problemOfLoading(load),
      port: { variable: spec.portVariable, fallback: spec.port },
      probes: image === 'gateway' ? { liveness: GATEWAY_PATHS.liveness, readiness: GATEWAY_PATHS.readiness } : { liveness: OPERATIONAL_PATHS.liveness, readiness: OPERATIONAL_PATHS.readiness },
      ...(metrics ? { metricsPath: OPERATIONAL_PATHS.metrics } : {}),
      shutdownTimeoutMs,
      shutdownDrainMs,
      ...(image === 'gateway' ? { upstreamRefreshMs } : {}),
    };
  };

  const migrateSource = readWorkspaceFile('tools/containers/migrate.cjs');
  const migrateEnv = finalStageEnv(MIGRATE_DOCKERFILE, dockerfileRules);
  // migrate.cjs has no schema: the variables it reads are those its source names (env.X, variable: 'X').
  const migrateVariables = [...migrateSource.matchAll(/\b(?:env\.|env\[['"]|variable: ['"])([A-Z][A-Z0-9_]+)/g)].map((match) => match[1] as string);

  const images: Record<PlatformImage, ImageDefinition> = {
    'auth-server': nodeService('auth-server', [auth.EnvSchema, limits.LimitsEnvSchema, cimd.EnvSchema], [logFormat], auth.loadAuthConfig, true),
    'resource-server': nodeService('resource-server', [resource.EnvSchema], [logFormat, pricingFile], resource.loadResourceConfig, true),
    gateway: nodeService('gateway', [gateway.EnvSchema], [logFormat], gateway.loadGatewayConfig, false),
    // deploy/nginx: the configuration is a file; nginx reads no environment.
    'nginx-gateway': {
      image: 'nginx-gateway',
      variables: new Set(),
      imageEnv: {},
      valueProblem: () => undefined,
      configProblem: () => undefined,
      port: { fallback: COMPOSE_NGINX_OPTIONS.port },
      probes: { liveness: GATEWAY_PATHS.liveness, readiness: GATEWAY_PATHS.readiness },
    },
    migrate: {
      image: 'migrate',
      variables: new Set([...migrateVariables, ...Object.keys(migrateEnv)]),
      imageEnv: migrateEnv,
      valueProblem: () => undefined,
      configProblem: problemOfLoading((env) => migrate.planFromEnv(env)),
      port: { fallback: 0 },
    },
  };
  return { images, nodeMemoryFloorMiB: APP_MEMORY_FLOOR_MIB, nodeImages: ['auth-server', 'resource-server', 'gateway'] };
}

/** nginx.conf of components/nginx-gateway, as the renderer makes it today. */
export function renderNginxVariant(): string {
  const { renderNginxConf, COMPOSE_NGINX_OPTIONS } = loadWorkspaceModule<NginxConfModule>('tools/containers/src/nginx-conf');
  const { nginxVariant } = require('../nginx-conf.cjs') as typeof import('../nginx-conf.cjs');
  return nginxVariant(renderNginxConf, COMPOSE_NGINX_OPTIONS);
}
