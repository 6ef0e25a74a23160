import { type Copy, DockerfileParser, type Env, type From, type Healthcheck, type Instruction } from 'dockerfile-ast';

/** Every rule a Dockerfile of this repository is held to; each violation names one. */
export type DockerfileRule =
  | 'multi-stage'
  | 'base-image-argument'
  | 'pinned-base-images'
  | 'node-slim-runtime'
  | 'builds-with-nx'
  | 'copies-build-output'
  | 'non-root-user'
  | 'healthcheck'
  | 'expose-port'
  | 'node-env-production'
  | 'no-dev-dependencies'
  | 'production-dependencies-stage';

export interface Violation {
  rule: DockerfileRule;
  message: string;
}

/** What an app's image must serve: the Nx project, its port and the variable the app reads it from. */
export interface AppImageSpec {
  app: string;
  port: number;
  portVariable: string;
}

export interface Stage {
  index: number;
  /** The `AS name`, or null. */
  name: string | null;
  from: From;
  instructions: Instruction[];
}

/** Node images this repository runs on: major 24, the active LTS (package.json engines). */
export const NODE_MAJOR = 24;

/**
 * Every base image comes from a build argument declared before the first FROM, whose default is
 * the official image (`ARG NODE_IMAGE=node:24-bookworm-slim`, `FROM ${NODE_IMAGE} AS build`): an
 * offline build passes its own stand-in (`--build-arg NODE_IMAGE=course-platform-local/node:24`)
 * instead of tagging it with the official name. Returns the Dockerfile with each such FROM
 * resolved to the default (what the other rules check) and the bases that are not arguments.
 */
export function resolveBaseImageArguments(content: string): { resolved: string; violations: Violation[] } {
  const defaults = new Map<string, string>();
  const violations: Violation[] = [];
  const instructions = DockerfileParser.parse(content).getInstructions();
  const firstFrom = instructions.findIndex((instruction) => instruction.getKeyword() === 'FROM');
  for (const instruction of instructions.slice(0, firstFrom < 0 ? 0 : firstFrom)) {
    if (instruction.getKeyword() !== 'ARG') continue;
    const [name, ...value] = text(instruction).trim().split('=');
    if (name && value.length > 0) defaults.set(name, value.join('=').replace(/^["']|["']$/g, ''));
  }
  const stageNames = new Set<string>();
  let index = 0;
  const resolved = content.replace(/^(\s*FROM\s+)(\S+)(.*)$/gim, (line, head: string, image: string, tail: string) => {
    const stage = index++;
    const argument = /^\$\{?(\w+)\}?$/.exec(image);
    const alias = /\bAS\s+(\S+)/i.exec(tail)?.[1];
    const earlierStage = stageNames.has(image);
    if (alias) stageNames.add(alias);
    if (earlierStage) return line;
    if (!argument) {
      violations.push({ rule: 'base-image-argument', message: `stage ${stage}: base image ${image} must come from a build argument (ARG NAME=${image} before the first FROM, FROM \${NAME})` });
      return line;
    }
    const fallback = defaults.get(argument[1] ?? '');
    if (fallback === undefined) {
      violations.push({ rule: 'base-image-argument', message: `stage ${stage}: the build argument ${argument[1]} needs a default (the official image) declared before the first FROM` });
      return line;
    }
    return `${head}${fallback}${tail}`;
  });
  return { resolved, violations };
}

/** The build stages of a Dockerfile, in order; instructions before the first FROM (ARGs) are ignored. */
export function parseStages(content: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of DockerfileParser.parse(content).getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const from = instruction as From;
      stages.push({ index: stages.length, name: from.getBuildStage(), from, instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1]?.instructions.push(instruction);
    }
  }
  return stages;
}

const of = <T extends Instruction>(stage: Stage, keyword: string) =>
  stage.instructions.filter((instruction) => instruction.getKeyword() === keyword) as T[];

const text = (instruction: Instruction) => instruction.getArgumentsContent() ?? '';

function envOf(stage: Stage): Map<string, string> {
  const env = new Map<string, string>();
  for (const instruction of of<Env>(stage, 'ENV')) {
    for (const property of instruction.getProperties()) env.set(property.getName(), property.getValue() ?? '');
  }
  return env;
}

/** `npm install|i|ci|add` commands of a RUN, each as its own command string. */
function npmInstalls(run: string): string[] {
  return run
    .split(/&&|\|\||;/)
    .map((command) => command.trim())
    .filter((command) => /(^|\s)npm\s+(install|i|ci|add)(\s|$)/.test(command));
}

const omitsDev = (command: string) => /--omit[= ]dev\b|--production\b|--only[= ]prod/.test(command);

function installsOf(stage: Stage): string[] {
  return of(stage, 'RUN').flatMap((run) => npmInstalls(text(run)));
}

function stageByReference(stages: Stage[], reference: string | null | undefined): Stage | undefined {
  if (!reference) return undefined;
  return stages.find((stage) => stage.name === reference || String(stage.index) === reference);
}

/** The base image of a stage, or null when it builds on an earlier stage. */
function externalBase(stages: Stage[], stage: Stage): From | null {
  const image = stage.from.getImageName();
  return stages.some((earlier) => earlier.index < stage.index && earlier.name === image) ? null : stage.from;
}

function copiesFrom(stage: Stage): { from: string | null; sources: string[] }[] {
  return of<Copy>(stage, 'COPY').map((copy) => {
    const args = copy.getArguments().map((argument) => argument.getValue());
    return { from: copy.getFromFlag()?.getValue() ?? null, sources: args.slice(0, -1) };
  });
}

/** The rules every image of the repository follows (apps and the migration job). */
export function checkImageBasics(content: string): Violation[] {
  const { resolved, violations } = resolveBaseImageArguments(content);
  const stages = parseStages(resolved);
  const final = stages[stages.length - 1];
  if (stages.length < 2 || !final) {
    violations.push({ rule: 'multi-stage', message: `expected at least 2 stages (FROM), found ${stages.length}` });
    if (!final) return violations;
  }

  for (const stage of stages) {
    const base = externalBase(stages, stage);
    if (!base) continue;
    const image = base.getImage() ?? '';
    const tag = base.getImageTag();
    if (image.includes('$')) continue; // reported by base-image-argument
    if (!tag || !/^\d+(\.\d+)*([-.]|$)/.test(tag)) {
      violations.push({
        rule: 'pinned-base-images',
        message: `stage ${stage.index}: base image ${image} must be pinned to a major version (e.g. node:${NODE_MAJOR}-bookworm-slim), not ${tag ?? 'untagged'}`,
      });
    }
  }

  const runtimeBase = externalBase(stages, final);
  const runtimeTag = runtimeBase?.getImageTag() ?? '';
  const unresolved = runtimeBase?.getImage()?.includes('$') ?? false; // reported by base-image-argument
  if (
    !unresolved &&
    (!runtimeBase ||
    runtimeBase.getImageName() !== 'node' ||
    runtimeBase.getRegistry() !== null ||
    !new RegExp(`^${NODE_MAJOR}([-.]|$)`).test(runtimeTag) ||
    !/(slim|alpine)/.test(runtimeTag))
  ) {
    violations.push({
      rule: 'node-slim-runtime',
      message: `the final stage must run on the official node:${NODE_MAJOR} slim (or alpine) image by default, not ${final.from.getImage()}`,
    });
  }

  const users = of(final, 'USER').map((instruction) => text(instruction).trim());
  const user = users[users.length - 1];
  if (!user) {
    violations.push({ rule: 'non-root-user', message: 'the final stage sets no USER: the container would run as root' });
  } else if (['root', '0'].includes(user.split(':')[0] ?? '')) {
    violations.push({ rule: 'non-root-user', message: `the final stage runs as ${user}` });
  }

  if (envOf(final).get('NODE_ENV') !== 'production') {
    violations.push({ rule: 'node-env-production', message: 'the final stage must set ENV NODE_ENV=production' });
  }

  for (const install of installsOf(final)) {
    if (!omitsDev(install)) {
      violations.push({ rule: 'no-dev-dependencies', message: `the final stage installs dev dependencies: ${install}` });
    }
  }

  // node_modules of the final image: copied from a stage that installs production dependencies only.
  const moduleCopies = copiesFrom(final).filter((copy) => copy.sources.some((source) => /(^|\/)node_modules\/?$/.test(source)));
  for (const copy of moduleCopies) {
    const source = stageByReference(stages, copy.from);
    const installs = source ? installsOf(source) : [];
    if (!source) {
      violations.push({ rule: 'production-dependencies-stage', message: 'node_modules is copied from the build context, not from a dependencies stage' });
    } else if (installs.length === 0 || installs.some((install) => !omitsDev(install))) {
      violations.push({
        rule: 'production-dependencies-stage',
        message: `node_modules comes from stage ${source.name ?? source.index}, which must install with --omit=dev only (found: ${installs.join('; ') || 'no npm install'})`,
      });
    }
  }
  return violations;
}

/** An app's image: the basics, plus its build, its port and its health check. */
export function checkAppDockerfile(content: string, spec: AppImageSpec): Violation[] {
  const violations = checkImageBasics(content);
  const stages = parseStages(content);
  const final = stages[stages.length - 1];
  if (!final) return violations;

  const buildsApp = (stage: Stage) =>
    installsOf(stage).length > 0 &&
    of(stage, 'RUN').some((run) => new RegExp(`\\bnx\\s+(build\\s+${spec.app}|run\\s+${spec.app}:build)(\\s|$)`).test(text(run)));
  const buildStages = stages.filter((stage) => stage !== final && buildsApp(stage));
  if (buildStages.length === 0) {
    violations.push({ rule: 'builds-with-nx', message: `no stage runs npm install and nx build ${spec.app}` });
  }

  const output = `dist/apps/${spec.app}`;
  const copiesOutput = copiesFrom(final).some((copy) => {
    const source = stageByReference(stages, copy.from);
    return !!source && buildStages.includes(source) && copy.sources.some((path) => path.replace(/\/+$/, '').endsWith(output));
  });
  if (!copiesOutput) {
    violations.push({ rule: 'copies-build-output', message: `the final stage must COPY --from=<build stage> its ${output} output` });
  }

  const env = envOf(final);
  const exposed = of(final, 'EXPOSE').flatMap((instruction) => text(instruction).split(/\s+/).filter(Boolean));
  if (!exposed.some((port) => port.replace(/\/tcp$/, '') === String(spec.port))) {
    violations.push({ rule: 'expose-port', message: `the final stage must EXPOSE ${spec.port} (found: ${exposed.join(' ') || 'none'})` });
  }
  const configured = env.get(spec.portVariable);
  if (configured !== undefined && configured !== String(spec.port)) {
    violations.push({ rule: 'expose-port', message: `ENV ${spec.portVariable}=${configured} does not match the port ${spec.port}` });
  }

  const healthchecks = of<Healthcheck>(final, 'HEALTHCHECK');
  const healthcheck = healthchecks[healthchecks.length - 1];
  const probe = healthcheck ? text(healthcheck) : '';
  const probesPort = probe.includes(`:${spec.port}/`) || (configured !== undefined && probe.includes(`process.env.${spec.portVariable}`));
  if (!healthcheck || healthcheck.getSubcommand()?.getValue().toUpperCase() !== 'CMD') {
    violations.push({ rule: 'healthcheck', message: 'the final stage needs a HEALTHCHECK CMD' });
  } else if (!/"node"|^CMD\s+node\b/.test(probe) || !probe.includes('fetch(') || !probe.includes('/healthz') || !probesPort) {
    violations.push({
      rule: 'healthcheck',
      message: `the HEALTHCHECK must probe GET /healthz on port ${spec.port} with node's fetch (slim images have no curl): ${probe}`,
    });
  }
  return violations;
}
