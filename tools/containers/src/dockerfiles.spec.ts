import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_IMAGES, MIGRATE_DOCKERFILE } from './apps';
import { type AppImageSpec, checkAppDockerfile, checkImageBasics, type DockerfileRule, parseStages } from './dockerfile-rules';

const root = join(__dirname, '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const rulesOf = (violations: { rule: string }[]) => [...new Set(violations.map((violation) => violation.rule))];

describe('the Dockerfiles of the repository', () => {
  it.each(APP_IMAGES)('$dockerfile follows every rule', (image) => {
    expect(checkAppDockerfile(read(image.dockerfile), image)).toEqual([]);
  });

  it.each(APP_IMAGES)('$dockerfile: the port is the one $app listens on by default', (image) => {
    const config = read(image.config);
    const line = config.split('\n').find((text) => text.includes(image.portVariable) && /default\(\d+\)|portEnv\(\d+\)|\?\?\s*\d+/.test(text));
    expect(Number(/(?:default\(|portEnv\(|\?\?\s*)(\d+)/.exec(line ?? '')?.[1])).toBe(image.port);
  });

  it('the migration image follows the rules of every image', () => {
    expect(checkImageBasics(read(MIGRATE_DOCKERFILE))).toEqual([]);
  });

  it('the app Dockerfiles share their first build steps, so the workspace install is one cached layer', () => {
    const upToBuild = (path: string) => {
      const content = read(path);
      return content.slice(content.indexOf('FROM '), content.indexOf('RUN npx nx build'));
    };
    const [first, ...others] = APP_IMAGES.map((image) => upToBuild(image.dockerfile));
    for (const other of others) expect(other).toBe(first);
  });

  it('the build context leaves out secrets, installs, local state and the git history', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['.env', '.env.*', '!.env.example', 'node_modules', 'dist', '.nx', '.data', '.git', 'apps/*/src/generated']) {
      expect(ignored).toContain(entry);
    }
  });
});

// A small app image that follows every rule; each negative case breaks exactly one of them.
const SPEC: AppImageSpec = { app: 'demo-app', port: 4000, portVariable: 'DEMO_PORT' };
const GOOD = `
ARG NODE_IMAGE=node:24-bookworm-slim

FROM \${NODE_IMAGE} AS build
WORKDIR /w
COPY . .
RUN npm install
RUN npx nx build demo-app

FROM \${NODE_IMAGE} AS deps
WORKDIR /deps
COPY --from=build /w/dist/containers/demo-app/package.json ./
RUN npm install --omit=dev --ignore-scripts

FROM \${NODE_IMAGE} AS runtime
ENV NODE_ENV=production DEMO_PORT=4000
WORKDIR /app
COPY --from=deps /deps/node_modules ./node_modules
COPY --from=build /w/dist/apps/demo-app ./
USER node
EXPOSE 4000
HEALTHCHECK CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.DEMO_PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "main.js"]
`;

function replace(content: string, from: string | RegExp, to: string): string {
  const result = content.replace(from, to);
  if (result === content) throw new Error(`the mutation ${String(from)} changed nothing`);
  return result;
}

/** GOOD with one stage's base image taken from its own argument, whose default is `image`. */
function withStageImage(stage: string, image: string): string {
  const declared = replace(GOOD, 'ARG NODE_IMAGE=node:24-bookworm-slim', `ARG NODE_IMAGE=node:24-bookworm-slim\nARG STAGE_IMAGE=${image}`);
  return replace(declared, `FROM \${NODE_IMAGE} AS ${stage}`, `FROM \${STAGE_IMAGE} AS ${stage}`);
}

const NEGATIVE_CASES: [DockerfileRule, string, string][] = [
  [
    'multi-stage',
    'a single stage',
    `ARG NODE_IMAGE=node:24-bookworm-slim
FROM \${NODE_IMAGE}
ENV NODE_ENV=production DEMO_PORT=4000
COPY . .
RUN npm install --omit=dev && npx nx build demo-app
USER node
EXPOSE 4000
HEALTHCHECK CMD ["node", "-e", "fetch('http://127.0.0.1:4000/healthz').then((r) => process.exit(r.ok ? 0 : 1))"]
CMD ["node", "dist/apps/demo-app/main.js"]`,
  ],
  ['base-image-argument', 'a literal base image', replace(GOOD, 'FROM ${NODE_IMAGE} AS deps', 'FROM node:24-bookworm-slim AS deps')],
  ['base-image-argument', 'an argument without a default', replace(GOOD, 'FROM ${NODE_IMAGE} AS deps', 'FROM ${DEPS_IMAGE} AS deps')],
  ['base-image-argument', 'an argument declared after the first FROM', replace(GOOD, 'FROM ${NODE_IMAGE} AS deps', 'ARG DEPS_IMAGE=node:24-bookworm-slim\nFROM ${DEPS_IMAGE} AS deps')],
  ['pinned-base-images', 'node:latest', withStageImage('build', 'node:latest')],
  ['pinned-base-images', 'an untagged image', withStageImage('deps', 'node')],
  ['pinned-base-images', 'a codename tag without a version', withStageImage('deps', 'node:lts-slim')],
  ['node-slim-runtime', 'the full (not slim) runtime image', withStageImage('runtime', 'node:24-bookworm')],
  ['node-slim-runtime', 'another Node major', withStageImage('runtime', 'node:20-bookworm-slim')],
  ['node-slim-runtime', 'an unofficial image', withStageImage('runtime', 'example/node:24-slim')],
  ['builds-with-nx', 'no nx build', replace(GOOD, 'RUN npx nx build demo-app', 'RUN npx tsc -p apps/demo-app')],
  ['copies-build-output', 'the output copied from the build context', replace(GOOD, 'COPY --from=build /w/dist/apps/demo-app ./', 'COPY dist/apps/demo-app ./')],
  ['copies-build-output', 'another output copied', replace(GOOD, 'COPY --from=build /w/dist/apps/demo-app ./', 'COPY --from=build /w/dist/apps/other-app ./')],
  ['non-root-user', 'no USER', replace(GOOD, 'USER node\n', '')],
  ['non-root-user', 'USER root', replace(GOOD, 'USER node', 'USER root')],
  ['non-root-user', 'USER 0:0', replace(GOOD, 'USER node', 'USER 0:0')],
  ['non-root-user', 'a USER only in the build stage', replace(replace(GOOD, 'USER node\n', ''), 'WORKDIR /w\n', 'WORKDIR /w\nUSER node\n')],
  ['healthcheck', 'no HEALTHCHECK', replace(GOOD, /HEALTHCHECK .*\n/, '')],
  ['healthcheck', 'HEALTHCHECK NONE', replace(GOOD, /HEALTHCHECK .*\n/, 'HEALTHCHECK NONE\n')],
  ['healthcheck', 'curl (absent from slim images)', replace(GOOD, /HEALTHCHECK .*\n/, 'HEALTHCHECK CMD curl -f http://127.0.0.1:4000/healthz || exit 1\n')],
  ['healthcheck', 'another path', replace(GOOD, "'/healthz'", "'/status'")],
  ['healthcheck', 'another port', replace(GOOD, "'http://127.0.0.1:' + process.env.DEMO_PORT + '/healthz'", "'http://127.0.0.1:8080/healthz'")],
  ['expose-port', 'another port exposed', replace(GOOD, 'EXPOSE 4000', 'EXPOSE 8080')],
  ['expose-port', 'no EXPOSE', replace(GOOD, 'EXPOSE 4000\n', '')],
  ['expose-port', 'the port variable set to another port', replace(GOOD, 'DEMO_PORT=4000', 'DEMO_PORT=4001')],
  ['node-env-production', 'no NODE_ENV', replace(GOOD, 'ENV NODE_ENV=production DEMO_PORT=4000', 'ENV DEMO_PORT=4000')],
  ['node-env-production', 'NODE_ENV=development', replace(GOOD, 'NODE_ENV=production', 'NODE_ENV=development')],
  ['no-dev-dependencies', 'npm install in the final stage', replace(GOOD, 'USER node', 'RUN npm install\nUSER node')],
  ['no-dev-dependencies', 'npm ci in the final stage', replace(GOOD, 'USER node', 'RUN npm ci --no-audit\nUSER node')],
  ['production-dependencies-stage', 'a full install in the deps stage', replace(GOOD, 'RUN npm install --omit=dev --ignore-scripts', 'RUN npm install --ignore-scripts')],
  ['production-dependencies-stage', 'node_modules from the build stage', replace(GOOD, 'COPY --from=deps /deps/node_modules', 'COPY --from=build /w/node_modules')],
  ['production-dependencies-stage', 'node_modules from the build context', replace(GOOD, 'COPY --from=deps /deps/node_modules', 'COPY node_modules')],
];

describe('the Dockerfile checker', () => {
  it('passes the good example', () => {
    expect(checkAppDockerfile(GOOD, SPEC)).toEqual([]);
    expect(parseStages(GOOD).map((stage) => stage.name)).toEqual(['build', 'deps', 'runtime']);
  });

  it.each(NEGATIVE_CASES)('catches a broken %s rule: %s', (rule, _name, bad) => {
    const violations = checkAppDockerfile(bad, SPEC);
    expect(rulesOf(violations)).toContain(rule);
    for (const violation of violations) expect(violation.message).toEqual(expect.any(String));
  });

  it('single-rule mutations break only their rule', () => {
    for (const [rule, name, bad] of NEGATIVE_CASES) {
      if (['multi-stage', 'builds-with-nx'].includes(rule)) continue; // these take other rules down with them
      expect({ name, rules: rulesOf(checkAppDockerfile(bad, SPEC)) }).toEqual({ name, rules: [rule] });
    }
  });

  it('has a negative case for every rule', () => {
    const rules: DockerfileRule[] = [
      'multi-stage',
      'base-image-argument',
      'pinned-base-images',
      'node-slim-runtime',
      'builds-with-nx',
      'copies-build-output',
      'non-root-user',
      'healthcheck',
      'expose-port',
      'node-env-production',
      'no-dev-dependencies',
      'production-dependencies-stage',
    ];
    expect(new Set(NEGATIVE_CASES.map(([rule]) => rule))).toEqual(new Set(rules));
  });
});
