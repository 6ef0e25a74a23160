import ts from 'typescript';

export interface PropertyComments {
  /** Each property's doc comment, one paragraph (its lines joined by spaces); undefined when it has none. */
  comments: Map<string, string | undefined>;
  /**
   * Objects the literal takes properties from, declared elsewhere: those it spreads
   * (`...operationsEnv`) and those a property's value reads a field of (`operationsEnv.LOG_LEVEL`).
   * Their own doc comments describe those properties.
   */
  borrowedFrom: string[];
}

/**
 * The doc comment above each property of an object literal a source file declares: `const NAME =
 * z.object({ ... })` or `const NAME = { ... }`, exported or not.
 */
export function propertyComments(source: string, fileName: string, declaration: string): PropertyComments {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const literal = objectLiteralOf(file, declaration);
  if (!literal) throw new Error(`${fileName} declares no object literal or z.object({ ... }) named ${declaration}`);
  const comments = new Map<string, string | undefined>();
  const borrowedFrom = new Set<string>();
  for (const property of literal.properties) {
    if (ts.isSpreadAssignment(property) && ts.isIdentifier(property.expression)) borrowedFrom.add(property.expression.text);
    if (!ts.isPropertyAssignment(property)) continue;
    const name = ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : property.name.getText(file);
    comments.set(name, docComment(property));
    const fieldReads = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.name.text === name) borrowedFrom.add(node.expression.text);
      ts.forEachChild(node, fieldReads);
    };
    fieldReads(property.initializer);
  }
  return { comments, borrowedFrom: [...borrowedFrom] };
}

/** Whether a source file declares a top-level `const NAME = ...` (where a borrowed object lives). */
export function declaresConstant(source: string, fileName: string, declaration: string): boolean {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  return objectLiteralOf(file, declaration) !== undefined;
}

function objectLiteralOf(file: ts.SourceFile, declaration: string): ts.ObjectLiteralExpression | undefined {
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const variable of statement.declarationList.declarations) {
      if (!ts.isIdentifier(variable.name) || variable.name.text !== declaration || !variable.initializer) continue;
      const initializer = variable.initializer;
      if (ts.isObjectLiteralExpression(initializer)) return initializer;
      // z.object({ ... }) (or z.strictObject: any call whose first argument is the literal).
      if (ts.isCallExpression(initializer) && initializer.arguments[0] && ts.isObjectLiteralExpression(initializer.arguments[0])) {
        return initializer.arguments[0];
      }
    }
  }
  return undefined;
}

function docComment(node: ts.Node): string | undefined {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const last = docs[docs.length - 1];
  const text = last ? ts.getTextOfJSDocComment(last.comment) : undefined;
  const paragraph = text?.replace(/\s*\n\s*/g, ' ').trim();
  return paragraph || undefined;
}
