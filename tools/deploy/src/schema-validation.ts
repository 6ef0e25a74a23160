import type { K8sObject } from './k8s-objects';

interface ValidatingModel {
  validate(): void;
}

type ModelClass = new (data: unknown) => ValidatingModel;

interface ValidationFailure {
  errors?: { instancePath?: string; message?: string }[];
  message: string;
}

/**
 * An object checked against the Kubernetes API schemas, offline, with kubernetes-models 4.x (its
 * models carry the OpenAPI schemas of the API; 5.x needs Node 22). One line per problem; none
 * when the object is valid. The schemas check types, enums and required fields; an unknown field
 * name passes (the API server's own validation refuses it at apply time).
 */
export function schemaProblems(object: K8sObject): string[] {
  let Model: ModelClass | undefined;
  try {
    Model = (require(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<string, ModelClass>)[object.kind];
  } catch {
    Model = undefined;
  }
  if (!Model) return [`${object.apiVersion} ${object.kind}: no such kind in the Kubernetes API`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    const failure = error as ValidationFailure;
    return failure.errors?.map((entry) => `${entry.instancePath || '/'} ${entry.message}`) ?? [failure.message];
  }
}
