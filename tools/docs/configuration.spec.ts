import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENTS_CLI, CLIS, EVENTS_CLI, type HandProcess, LAUNCHER, MIGRATION_JOB, SERVICES, type ServiceDefinition } from './configuration-processes';
import { loadWorkspaceModule, PAGE, readWorkspaceFile, REGENERATE, renderConfigurationPage, serviceFields, WORKSPACE } from './configuration-page';
import { environmentReads } from './environment-reads';

/**
 * docs/configuration.md cannot drift from the code: the page is what the schemas make, the
 * production rules written beside them are what the loaders do, and every variable a process
 * reads is on the page. With UPDATE_DOCS_CONFIGURATION=1 (`node tools/docs/render-configuration.mjs`)
 * the first test writes the page instead.
 */

/** Values the loaders accept, for the variables a minimal environment needs. */
const EXAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgresql://platform:secret@127.0.0.1:5432/platform',
  INTROSPECTION_CLIENT_SECRET: 'a-secret-of-thirty-two-characters',
  PUBLIC_BASE_URL: 'https://platform.example',
  REDIS_URL: 'redis://127.0.0.1:6379',
  RESOURCE_SERVER_URL: 'http://resource-server:3002',
  // The loader takes the JSON as is; the keys are read when the server starts.
  OIDC_SIGNING_KEYS: '[]',
  OIDC_SIGNING_KEYS_FILE: '/run/secrets/signing-keys.json',
};

/**
 * Variables read in apps/*\/src and libs/*\/src that are no configuration of the platform. Each
 * with why.
 */
const NOT_CONFIGURATION: Record<string, string> = {
  PLATFORM_EVENT_BUS_IPC:
    "set by npm start's launcher (tools/platform/processes.mjs) on the services it forks, never by an operator: their in-process event bus then travels through the launcher",
};

type Environment = Record<string, string>;

function example(name: string): string {
  const value = EXAMPLES[name];
  if (value === undefined) throw new Error(`configuration.spec.ts has no example value of ${name}: add one to EXAMPLES`);
  return value;
}

/** What the loader says of an environment: undefined when it loads. */
function loadProblem(definition: ServiceDefinition, env: Environment): string | undefined {
  const load = loadWorkspaceModule<Record<string, (env: Environment) => unknown>>(definition.loader.file)[definition.loader.exportName];
  try {
    load(env);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The variables the table says a start needs: without a default, and (in production) the production-required. */
function minimalEnvironment(definition: ServiceDefinition, production: boolean): Environment {
  const env: Environment = production ? { NODE_ENV: 'production' } : {};
  for (const [name] of [...serviceFields(definition)].filter(([, { field }]) => !field.safeParse(undefined).success)) env[name] = example(name);
  if (!production) return env;
  for (const [name, rule] of Object.entries(definition.production)) {
    // Of two alternatives, the first in the table's order stands for both.
    if (rule.required && !(rule.orElse && rule.orElse in env)) env[name] = example(name);
  }
  return env;
}

const without = (env: Environment, ...names: string[]) => Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));

describe('docs/configuration.md', () => {
  it('is what the schemas and configuration-processes.ts make', () => {
    const expected = renderConfigurationPage();
    if (process.env['UPDATE_DOCS_CONFIGURATION'] === '1') {
      writeFileSync(join(WORKSPACE, PAGE), expected);
      return;
    }
    const page = readWorkspaceFile(PAGE).split('\n');
    const lines = expected.split('\n');
    const at = lines.findIndex((line, index) => line !== page[index]);
    if (at >= 0 || page.length !== lines.length) {
      const line = at >= 0 ? at : Math.min(page.length, lines.length);
      throw new Error(
        `${PAGE} differs from the configuration schemas: run \`${REGENERATE}\` and commit the page.\n` +
          `First difference, line ${line + 1}:\n  expected: ${lines[line] ?? '(end of page)'}\n  found:    ${page[line] ?? '(end of page)'}`,
      );
    }
  });
});

describe.each(SERVICES.map((definition) => [definition.service, definition] as const))('%s: the required column is what its loader does', (_service, definition) => {
  it('starts (outside production) with only the variables marked required', () => {
    expect(loadProblem(definition, minimalEnvironment(definition, false))).toBeUndefined();
  });

  it('starts in production with the variables marked required or required in production', () => {
    expect(loadProblem(definition, minimalEnvironment(definition, true))).toBeUndefined();
  });

  const required = [...serviceFields(definition)].filter(([, { field }]) => !field.safeParse(undefined).success).map(([name]) => name);
  const productionRequired = Object.entries(definition.production).filter(([, rule]) => rule.required);
  const alternatives = productionRequired.filter(([, rule]) => rule.orElse);
  const refused = Object.entries(definition.production).filter(([, rule]) => rule.refused !== undefined);

  it('does not start in production without any one of the variables marked required, naming it', () => {
    const problems = [...required, ...productionRequired.map(([name]) => name)].map((name) => {
      const rule = definition.production[name];
      const env = without(minimalEnvironment(definition, true), name, ...(rule?.orElse ? [rule.orElse] : []));
      // Of two alternatives, naming either names the missing pair.
      const named = [name, ...(rule?.orElse ? [rule.orElse] : [])].some((variable) => loadProblem(definition, env)?.includes(variable));
      return [name, named ? 'refused, naming it' : 'not refused by name'];
    });
    expect(Object.fromEntries(problems)).toEqual(Object.fromEntries(problems.map(([name]) => [name, 'refused, naming it'])));
  });

  it('starts in production with either of two alternatives alone', () => {
    const started = alternatives.map(([name, rule]) => {
      const env = { ...without(minimalEnvironment(definition, true), rule.orElse ?? ''), [name]: example(name) };
      return [name, loadProblem(definition, env) ?? 'started'];
    });
    expect(Object.fromEntries(started)).toEqual(Object.fromEntries(alternatives.map(([name]) => [name, 'started'])));
  });

  it('refuses in production each value marked so, which the schema itself takes', () => {
    const outcomes = refused.map(([name, rule]) => {
      const value = rule.refused ?? '';
      const schemaTakesIt = serviceFields(definition).get(name)?.field.safeParse(value).success === true;
      const problem = loadProblem(definition, { ...minimalEnvironment(definition, true), [name]: value });
      return [name, { schemaTakesIt, productionNamesIt: problem?.includes(name) === true }];
    });
    expect(Object.fromEntries(outcomes)).toEqual(Object.fromEntries(refused.map(([name]) => [name, { schemaTakesIt: true, productionNamesIt: true }])));
  });
});

/** The source files of a folder, recursively, tests and generated code left out. */
function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(WORKSPACE, folder))) {
    const path = `${folder}/${entry}`;
    if (statSync(join(WORKSPACE, path)).isDirectory()) {
      if (!['test', 'generated', 'node_modules'].includes(entry)) files.push(...sourceFiles(path));
    } else if (/\.(ts|mjs|cjs|js)$/.test(entry) && !/\.(spec|test)\.ts$/.test(entry)) {
      files.push(path);
    }
  }
  return files;
}

/** The variables a file reads; a computed name is resolved by `computed`, or fails the test naming it. */
function readsOf(path: string, computed: Record<string, () => string[]> = {}): string[] {
  const { reads, computed: unresolved } = environmentReads(readWorkspaceFile(path), path);
  const names = reads.map((read) => read.name);
  for (const read of unresolved) {
    const resolve = computed[read.expression];
    if (!resolve) throw new Error(`${path}:${read.line} reads env[${read.expression}]: a name this check cannot resolve; list what it can be`);
    names.push(...resolve());
  }
  return names;
}

describe('every variable a process reads is on the page', () => {
  /** The apps' and libs' sources; the end-to-end suites (apps/*-e2e) are tests. */
  const serviceSources = () =>
    [
      ...readdirSync(join(WORKSPACE, 'apps'))
        .filter((app) => !app.endsWith('-e2e'))
        .map((app) => `apps/${app}/src`),
      ...readdirSync(join(WORKSPACE, 'libs')).map((lib) => `libs/${lib}/src`),
    ]
      .filter((folder) => statSync(join(WORKSPACE, folder), { throwIfNoEntry: false })?.isDirectory())
      .flatMap(sourceFiles);

  it('apps/*/src and libs/*/src read only the services\' variables, the staff CLIs\' and those listed as no configuration', () => {
    const documented = new Set([
      ...SERVICES.flatMap((definition) => [...serviceFields(definition).keys(), ...definition.extras.map((extra) => extra.name)]),
      ...Object.keys(NOT_CONFIGURATION),
    ]);
    const readByCli = (file: string, name: string) =>
      CLIS.some((cli) => cli.sources.includes(file) && cli.variables.some((variable) => variable.name === name));
    const undocumented = serviceSources().flatMap((file) =>
      readsOf(file)
        .filter((name) => !documented.has(name) && !readByCli(file, name))
        .map((name) => `${name} (${file})`),
    );
    expect(undocumented).toEqual([]);
  });

  it.each(SERVICES.flatMap((definition) => definition.extras.map((extra) => [`${definition.service}: ${extra.name}`, extra] as const)))(
    '%s is read where the page says',
    (_name, extra) => {
      expect(readsOf(extra.readIn ?? '')).toContain(extra.name);
    },
  );

  it('NOT_CONFIGURATION names only variables that are read', () => {
    const read = new Set(serviceSources().flatMap((file) => readsOf(file)));
    expect(Object.keys(NOT_CONFIGURATION).filter((name) => !read.has(name))).toEqual([]);
  });
});

/** The launcher's SERVICES: the variables tools/platform reads by a service's field (`env[service.portVar]`). */
function launcherComputedReads(): Record<string, () => string[]> {
  const { SERVICES: launched } = loadWorkspaceModule<{ SERVICES: Record<string, string>[] }>('tools/platform/services.mjs');
  const field = (key: string) => () => launched.map((service) => service[key] ?? '');
  return { 'service.portVar': field('portVar'), 'service.urlVar': field('urlVar'), 'service.databaseUrlVar': field('databaseUrlVar') };
}

describe.each([
  ['the migration job', MIGRATION_JOB, () => ({})],
  ['the launcher', LAUNCHER, launcherComputedReads],
  ['the clients CLI', CLIENTS_CLI, () => ({})],
  ['the events CLI', EVENTS_CLI, () => ({})],
] as [string, HandProcess, () => Record<string, () => string[]>][])('%s: the hand-written table', (_process, handProcess, computed) => {
  it('lists exactly the variables its sources read', () => {
    const read = new Set(handProcess.sources.flatMap((source) => readsOf(source, computed())));
    expect(handProcess.variables.map((variable) => variable.name).sort()).toEqual([...read].sort());
  });
});

describe('the launcher', () => {
  it('reads the environment only in the files its table names', () => {
    const files = readdirSync(join(WORKSPACE, 'tools/platform')).filter((file) => file.endsWith('.mjs')).map((file) => `tools/platform/${file}`);
    const reading = files.filter((file) => readsOf(file, launcherComputedReads()).length > 0);
    expect(reading.filter((file) => !LAUNCHER.sources.includes(file))).toEqual([]);
  });
});

describe('the migration job', () => {
  const { planFromEnv } = loadWorkspaceModule<{ planFromEnv(env: Environment): { createDatabases: boolean; connectTimeoutMs: number } }>('tools/containers/migrate.cjs');
  const fallback = (name: string) => MIGRATION_JOB.variables.find((variable) => variable.name === name)?.fallback;
  const required = MIGRATION_JOB.variables.filter((variable) => variable.required).map((variable) => variable.name);
  const env = Object.fromEntries(required.map((name) => [name, EXAMPLES['DATABASE_URL'] ?? '']));

  it('needs the variables marked required, naming each', () => {
    expect(() => planFromEnv({})).toThrow(new RegExp(required.join('.*')));
    expect(() => planFromEnv(env)).not.toThrow();
  });

  it('takes the defaults the table gives', () => {
    const plan = planFromEnv(env);
    expect(fallback('MIGRATE_CREATE_DATABASES')).toBe(`\`${plan.createDatabases}\``);
    expect(fallback('MIGRATE_CONNECT_TIMEOUT_SECONDS')).toBe(`\`${plan.connectTimeoutMs / 1000}\``);
  });
});
