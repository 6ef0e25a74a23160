import ts from 'typescript';

/** A variable read by name from the environment: `process.env.NAME`, `env['NAME']`, `const { NAME } = process.env`. */
export interface EnvironmentRead {
  name: string;
  line: number;
}

/** A read whose name the source computes and this scanner cannot resolve: `env[service.portVar]`. */
export interface ComputedRead {
  /** The index expression as written: `service.portVar`. */
  expression: string;
  line: number;
}

const VARIABLE = /^[A-Z][A-Z0-9_]*$/;

/**
 * The environment variables a TypeScript or JavaScript source reads. The environment is
 * `process.env`, any identifier named `env` (the loaders' and launchers' parameter), and any
 * variable or parameter initialised or defaulted to `process.env`. An index that is a constant
 * string of the same file, or the variable of a `for (const name of [...literal strings])`, or a
 * property destructured in a callback over a constant array of object literals
 * (`SCHEMAS.map(({ variable }) => env[variable])`), is resolved; any other computed index is
 * returned as a ComputedRead for the caller to account for.
 */
export function environmentReads(source: string, fileName: string): { reads: EnvironmentRead[]; computed: ComputedRead[] } {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, scriptKindOf(fileName));
  const environments = new Set(['env']);
  const declarations = new Map<string, ts.Node[]>();
  const reads: EnvironmentRead[] = [];
  const computed: ComputedRead[] = [];
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;

  const isProcessEnv = (node: ts.Node): boolean =>
    ts.isPropertyAccessExpression(node) && node.name.text === 'env' && ts.isIdentifier(node.expression) && node.expression.text === 'process';
  const isEnvironment = (node: ts.Node): boolean => isProcessEnv(node) || (ts.isIdentifier(node) && environments.has(node.text));

  // First pass: what names the environment, and every declaration by name (to resolve indexes).
  const collect = (node: ts.Node): void => {
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node)) && ts.isIdentifier(node.name)) {
      if (node.initializer && isProcessEnv(node.initializer)) environments.add(node.name.text);
      declarations.set(node.name.text, [...(declarations.get(node.name.text) ?? []), node]);
    }
    if (ts.isBindingElement(node) && ts.isIdentifier(node.name)) {
      declarations.set(node.name.text, [...(declarations.get(node.name.text) ?? []), node]);
    }
    ts.forEachChild(node, collect);
  };
  collect(file);

  const resolve = (index: ts.Expression): string[] | undefined => {
    if (ts.isStringLiteralLike(index)) return [index.text];
    if (!ts.isIdentifier(index)) return undefined;
    const declaration = bindingOf(index, declarations.get(index.text) ?? []);
    return declaration && namesOf(declaration, declarations);
  };

  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isEnvironment(node.expression) && VARIABLE.test(node.name.text)) {
      reads.push({ name: node.name.text, line: lineOf(node) });
    } else if (ts.isElementAccessExpression(node) && isEnvironment(node.expression)) {
      const names = resolve(node.argumentExpression);
      if (names) reads.push(...names.filter((name) => VARIABLE.test(name)).map((name) => ({ name, line: lineOf(node) })));
      else computed.push({ expression: node.argumentExpression.getText(file), line: lineOf(node) });
    } else if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name) && node.initializer && isEnvironment(node.initializer)) {
      for (const element of node.name.elements) {
        const name = (element.propertyName ?? element.name).getText(file);
        if (VARIABLE.test(name)) reads.push({ name, line: lineOf(element) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { reads, computed };
}

/** The node a declaration is visible in: its function (a parameter), loop, block or file. */
function scopeOf(declaration: ts.Node): ts.Node {
  let node = declaration.parent;
  while (!(ts.isFunctionLike(node) || ts.isBlock(node) || ts.isSourceFile(node) || ts.isForOfStatement(node) || ts.isForStatement(node))) {
    node = node.parent;
  }
  return node;
}

/** Which of the declarations of a name an identifier refers to: the innermost whose scope holds it. */
function bindingOf(identifier: ts.Identifier, declarations: ts.Node[]): ts.Node | undefined {
  const holding = declarations
    .map((declaration) => ({ declaration, scope: scopeOf(declaration) }))
    .filter(({ scope }) => scope.pos <= identifier.pos && identifier.end <= scope.end);
  holding.sort((a, b) => a.scope.end - a.scope.pos - (b.scope.end - b.scope.pos));
  return holding[0]?.declaration;
}

function scriptKindOf(fileName: string): ts.ScriptKind {
  return /\.[cm]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

/** The strings an identifier's declaration can hold, when the source spells them out. */
function namesOf(declaration: ts.Node, declarations: Map<string, ts.Node[]>): string[] | undefined {
  // const NAME_ENV = 'NAME'
  if (ts.isVariableDeclaration(declaration) && declaration.initializer && ts.isStringLiteralLike(declaration.initializer)) {
    return [declaration.initializer.text];
  }
  // for (const name of ['A', 'B'] as const)
  if (ts.isVariableDeclaration(declaration) && ts.isVariableDeclarationList(declaration.parent) && ts.isForOfStatement(declaration.parent.parent)) {
    return stringsOf(declaration.parent.parent.expression);
  }
  // LIST.map(({ variable }) => ...): LIST a constant array of object literals with `variable: 'NAME'`.
  if (ts.isBindingElement(declaration) && ts.isObjectBindingPattern(declaration.parent) && ts.isParameter(declaration.parent.parent)) {
    const callback = declaration.parent.parent.parent;
    const call = callback.parent;
    if (!ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression) || !ts.isIdentifier(call.expression.expression)) return undefined;
    const list = (declarations.get(call.expression.expression.text) ?? []).find(ts.isVariableDeclaration);
    const key = (declaration.propertyName ?? declaration.name).getText();
    return list?.initializer ? propertyStringsOf(list.initializer, key) : undefined;
  }
  return undefined;
}

const unwrap = (node: ts.Expression): ts.Expression =>
  ts.isAsExpression(node) || ts.isParenthesizedExpression(node) || ts.isSatisfiesExpression(node) ? unwrap(node.expression) : node;

function stringsOf(node: ts.Expression): string[] | undefined {
  const array = unwrap(node);
  if (!ts.isArrayLiteralExpression(array)) return undefined;
  const strings = array.elements.map(unwrap).filter(ts.isStringLiteralLike);
  return strings.length === array.elements.length ? strings.map((item) => item.text) : undefined;
}

function propertyStringsOf(node: ts.Expression, key: string): string[] | undefined {
  const array = unwrap(node);
  if (!ts.isArrayLiteralExpression(array)) return undefined;
  const values: string[] = [];
  for (const element of array.elements.map(unwrap)) {
    if (!ts.isObjectLiteralExpression(element)) return undefined;
    const property = element.properties.find((item) => ts.isPropertyAssignment(item) && item.name.getText() === key);
    if (!property || !ts.isPropertyAssignment(property) || !ts.isStringLiteralLike(property.initializer)) return undefined;
    values.push(property.initializer.text);
  }
  return values;
}
