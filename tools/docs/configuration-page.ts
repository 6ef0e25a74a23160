import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DockerfileParser, type Env } from 'dockerfile-ast';
import type { z } from 'zod';
import {
  CLIS,
  type HandProcess,
  type HandVariable,
  LAUNCHER,
  MIGRATION_JOB,
  type SchemaSource,
  type ServiceDefinition,
  SERVICES,
} from './configuration-processes';
import { describeEnvField } from './env-fields';
import { headingAnchors } from './markdown-links';
import { declaresConstant, propertyComments } from './schema-comments';

/**
 * docs/configuration.md, generated: the services' tables from their zod schemas (each field's
 * default and values from its definition, its description from the doc comment above it), the
 * other processes' from configuration-processes.ts. The modules are loaded by path at run time, as
 * tools/deploy does: the module boundaries let no tool import an app, and the page must be made
 * from the schemas the services run, not from a copy.
 */
export const WORKSPACE = join(__dirname, '..', '..');
export const PAGE = 'docs/configuration.md';
export const REGENERATE = 'node tools/docs/render-configuration.mjs';

export const loadWorkspaceModule = <T>(path: string): T => require(join(WORKSPACE, path)) as T;
export const readWorkspaceFile = (path: string) => readFileSync(join(WORKSPACE, path), 'utf8');

/** One row of a table, as it is printed. */
export interface Row {
  name: string;
  fallback: string;
  values: string;
  required: string;
  description: string;
}

/** A service's schema fields by variable, in table order: a variable two schemas share keeps its first place. */
export function serviceFields(definition: ServiceDefinition): Map<string, { field: z.ZodType; source: SchemaSource }> {
  const fields = new Map<string, { field: z.ZodType; source: SchemaSource }>();
  for (const source of definition.schemas) {
    const schema = loadWorkspaceModule<Record<string, z.ZodObject>>(source.file)[source.exportName];
    if (!schema?.shape) throw new Error(`${source.file} exports no zod object ${source.exportName}`);
    for (const [name, field] of Object.entries(schema.shape)) if (!fields.has(name)) fields.set(name, { field: field as z.ZodType, source });
  }
  return fields;
}

/** Source files of libs/*\/src, tests left out: where an object a schema borrows from is declared. */
function libraryFiles(): string[] {
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(join(WORKSPACE, directory))) {
      const path = `${directory}/${entry}`;
      if (statSync(join(WORKSPACE, path)).isDirectory()) walk(path);
      else if (entry.endsWith('.ts') && !entry.endsWith('.spec.ts')) files.push(path);
    }
  };
  for (const library of readdirSync(join(WORKSPACE, 'libs'))) {
    if (statSync(join(WORKSPACE, 'libs', library, 'src'), { throwIfNoEntry: false })?.isDirectory()) walk(`libs/${library}/src`);
  }
  return files;
}

/**
 * Each variable's description: the doc comment above it in the first of the service's schemas
 * that has one, else above it in an object a schema spreads or reads it from (`...operationsEnv`,
 * `operationsEnv.LOG_LEVEL`), found in libs/ by its declaration. Throws naming a variable with none.
 */
export function serviceDescriptions(definition: ServiceDefinition, names: Iterable<string>): Map<string, string> {
  const own: Map<string, string | undefined>[] = [];
  const borrowed = new Set<string>();
  for (const source of definition.schemas) {
    const { comments, borrowedFrom } = propertyComments(readWorkspaceFile(source.file), source.file, source.exportName);
    own.push(comments);
    for (const name of borrowedFrom) borrowed.add(name);
  }
  const libraries = borrowed.size > 0 ? libraryFiles() : [];
  for (const object of borrowed) {
    const file = libraries.find((path) => declaresConstant(readWorkspaceFile(path), path, object));
    // Not an object literal of libs/ (a schema's own helper, a zod namespace): nothing to borrow.
    if (file) own.push(propertyComments(readWorkspaceFile(file), file, object).comments);
  }
  const descriptions = new Map<string, string>();
  for (const name of names) {
    const description = own.map((comments) => comments.get(name)).find((comment) => comment !== undefined);
    if (!description) {
      const files = definition.schemas.map((source) => source.file).join(', ');
      throw new Error(`${name} (${definition.service}) has no doc comment: add a /** ... */ line above it in its schema (${files})`);
    }
    descriptions.set(name, description);
  }
  return descriptions;
}

const code = (text: string) => `\`${text}\``;

/** The rows of a service's table: its schema fields in order, its extras after the field they follow. */
export function serviceRows(definition: ServiceDefinition): Row[] {
  const fields = serviceFields(definition);
  for (const name of Object.keys(definition.production)) {
    if (!fields.has(name)) throw new Error(`the production rule of ${name} names no variable of the ${definition.service}'s schemas`);
  }
  const descriptions = serviceDescriptions(definition, fields.keys());
  const rows: Row[] = [...fields].map(([name, { field }]) => {
    const described = describeEnvField(name, field);
    const rule = definition.production[name];
    const fallback = described.required ? '—' : described.fallback === undefined ? 'unset' : described.fallback === '' ? 'empty' : code(described.fallback);
    const required = described.required ? 'yes' : rule?.required ? (rule.orElse ? `in production, or ${code(rule.orElse)}` : 'in production') : '';
    return { name, fallback, values: rule?.note ? `${described.values}; ${rule.note}` : described.values, required, description: descriptions.get(name) ?? '' };
  });
  for (const extra of definition.extras) {
    if (fields.has(extra.name)) throw new Error(`${extra.name} is in the ${definition.service}'s schemas: it is no extra`);
    const at = extra.after === undefined ? rows.length : rows.findIndex((row) => row.name === extra.after) + 1;
    if (at === 0) throw new Error(`${extra.name} follows ${extra.after}, which the ${definition.service}'s table does not have`);
    rows.splice(at, 0, handRow(extra));
  }
  return rows;
}

const handRow = (variable: HandVariable): Row => ({
  name: variable.name,
  fallback: variable.fallback,
  values: variable.values,
  required: variable.required ? 'yes' : '',
  description: variable.description,
});

/** The ENV of a Dockerfile's final stage, as `NAME=value`. */
export function imageEnv(dockerfile: string): string[] {
  const env: string[] = [];
  for (const instruction of DockerfileParser.parse(readWorkspaceFile(dockerfile)).getInstructions()) {
    if (instruction.getKeyword() === 'FROM') env.length = 0;
    if (instruction.getKeyword() !== 'ENV') continue;
    for (const property of (instruction as Env).getProperties()) env.push(`${property.getName()}=${property.getValue() ?? ''}`);
  }
  return env;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function table(rows: Row[]): string {
  const lines = ['| variable | default | values | required | description |', '|---|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${[code(row.name), row.fallback, row.values, row.required, row.description].map(cell).join(' | ')} |`);
  return lines.join('\n');
}

/** A link from docs/ to a file of the workspace, named by its file name. */
const fileLink = (path: string) => `[${code(basename(path))}](../${path})`;

function serviceSection(definition: ServiceDefinition): string {
  const schemas = definition.schemas.map((source) => fileLink(source.file)).join(', ');
  const extras = definition.extras.map((extra) => `${code(extra.name)} (${fileLink(extra.readIn ?? '')})`).join(', ');
  const image = imageEnv(definition.dockerfile).map(code).join(', ');
  return [
    `## ${definition.heading}`,
    definition.intro,
    `${definition.schemas.length > 1 ? 'Its schemas' : 'Its schema'}: ${schemas}, loaded by ${code(definition.loader.exportName)}; read beside them: ${extras}. ` +
      `Its image ([${code(definition.dockerfile)}](../${definition.dockerfile})) sets ${image}.`,
    table(serviceRows(definition)),
  ].join('\n\n');
}

function handSection(process: HandProcess): string {
  return [`## ${process.heading}`, process.intro, `Read by ${process.sources.map(fileLink).join(', ')}.`, table(process.variables.map(handRow))].join('\n\n');
}

const anchor = (heading: string) => [...headingAnchors(`## ${heading}`)][0];

const HOW_IT_WORKS = `## How configuration is read

- **The environment only.** No configuration file and no command-line options (the pricing plans that
  \`PRICING_FILE\` names are data). Each process reads its own variables: one that two services read (the public
  origin, the database, Redis, the introspection credentials) is set for each, and is in each one's table.
- **Checked once, at start.** A service validates its whole environment before anything else and stops (exit code 1)
  with a message naming each bad variable: \`Invalid configuration of the auth-server:\` and one \`NAME: message\`
  line per problem; the gateway one \`NAME: message\` line each (\`PORT: Invalid input: expected number, received
  NaN\`). A value outside its *values* stops the start as well.
- **Defaults are for one machine.** Unset, each variable takes its *default*: the services on 127.0.0.1 behind the
  gateway on port 3000, as \`npm start\` runs them. For its embedded mode the launcher fills in the rest
  ([below](#the-launcher-npm-start)): an embedded database per service, the secrets generated under \`.data/\`, the
  demo accounts.
- **Production.** \`NODE_ENV=production\`, which the images set, adds the rules marked *in production*: a service
  refuses to start on what only development may use (an http issuer, no Redis, a generated signing key, the embedded
  database, the demo accounts, a short introspection secret, the test-only CIMD settings), naming the variable.
- **Containers.** \`.env.example\` lists what compose substitutes into each service's \`environment:\`, and how to
  generate each secret ([Deployment](deployment.md#compose)); a container receives only the variables its service
  lists.`;

const SECRETS = `## Secrets

Three kinds of value are secrets: \`INTROSPECTION_CLIENT_SECRET\` (both services, the same value),
\`OIDC_SIGNING_KEYS\` (the authorization server only; or the file \`OIDC_SIGNING_KEYS_FILE\` names), and the
passwords inside the database and Redis URLs. None has a default a production start accepts. Where they come from:

- **\`npm start\`**: the embedded mode generates the introspection secret (\`.data/secrets.json\`) and the signing key
  (\`.data/auth/signing-keys.json\`) on first start and keeps them; with \`DATABASE_URL\` set,
  \`INTROSPECTION_CLIENT_SECRET\` must be set too.
- **Compose**: \`.env\` (git-ignored), written with fresh secrets by \`node tools/containers/generate-env.cjs\`;
  compose refuses to start while one is empty and gives each only to the services that read it (the gateway gets
  none).
- **Kubernetes**: Secrets you create once from files kept out of git; the manifests reference them and contain none
  ([deploy/kubernetes](../deploy/kubernetes/README.md#secrets)).
- **Swarm**: the environment of the shell that runs \`docker stack deploy\` (the same \`.env\`); swarm keeps the values
  in its encrypted Raft log ([deploy/swarm](../deploy/swarm/README.md#variables)).

The services store hashes of what they issue and never log a secret ([Security](security.md#secrets-at-rest-and-in-logs)).`;

const DEPLOYMENT_FILES = `## Variables of the deployment files

Some variables are read by no process, only by the deployment files: compose substitutes them into
\`docker-compose.yml\` (the base images, the gateway's published address and port, the PostgreSQL superuser, the
backend subnet the services' \`TRUSTED_PROXIES\` is set to, the containers' memory limit, the image tag), and
\`.env.example\` documents each. The swarm stack adds its replica counts and image prefix
([deploy/swarm](../deploy/swarm/README.md#variables)); the Kubernetes manifests take the services' variables from
their ConfigMaps and Secrets ([deploy/kubernetes](../deploy/kubernetes/README.md)).`;

/** docs/configuration.md. */
export function renderConfigurationPage(): string {
  const headings = [
    'How configuration is read',
    'Secrets',
    ...SERVICES.map((definition) => definition.heading),
    MIGRATION_JOB.heading,
    LAUNCHER.heading,
    ...CLIS.map((cli) => cli.heading),
    'Variables of the deployment files',
  ];
  const sections = [
    '# Configuration',
    `<!-- Generated by ${REGENERATE} from the services' configuration schemas and tools/docs/configuration-processes.ts; edit those, not this page (npm test -- tools/docs fails when they differ). -->`,
    'For operators: every variable each process of the platform reads, its default, the values it takes and what it does. ' +
      'The services\' tables are generated from the zod schemas that validate their environment, and a test fails when ' +
      'this page and the schemas differ: what is written here is what the code does.',
    headings.map((heading) => `- [${heading}](#${anchor(heading)})`).join('\n'),
    HOW_IT_WORKS,
    SECRETS,
    ...SERVICES.map(serviceSection),
    handSection(MIGRATION_JOB),
    handSection(LAUNCHER),
    ...CLIS.map(handSection),
    DEPLOYMENT_FILES,
  ];
  return `${sections.join('\n\n')}\n`;
}
