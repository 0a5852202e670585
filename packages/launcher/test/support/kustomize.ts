import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The small part of kustomize that deploy/kubernetes uses, so the test renders the overlays
 * offline, as `kubectl apply -k` would: `resources` (files and folders), `namespace`, `images`,
 * and `patches` (strategic merge of maps, JSON 6902 add/replace/remove, optionally renaming).
 * Anything else (another kustomization field, a list inside a strategic-merge patch, a kind this
 * renderer does not know to be namespaced or not) is refused with an error, rather than rendered
 * differently from kustomize.
 */

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

interface Patch {
  path?: string;
  patch?: string;
  target?: PatchTarget;
  options?: { allowNameChange?: boolean };
}

interface ImageRule {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  namespace?: string;
  images?: ImageRule[];
  patches?: Patch[];
}

const SUPPORTED_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
const NAMESPACED_KINDS = new Set([
  'ConfigMap',
  'Deployment',
  'HorizontalPodAutoscaler',
  'Ingress',
  'Job',
  'NetworkPolicy',
  'PodDisruptionBudget',
  'Secret',
  'Service',
]);
const CLUSTER_KINDS = new Set(['Namespace']);

export class KustomizeError extends Error {
  override readonly name = 'KustomizeError';
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const clone = <T>(value: T): T => structuredClone(value);

/** Every YAML document of a file, empty documents skipped. */
export function readYamlDocuments(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  return docs.flatMap((doc) => {
    if (doc.errors.length > 0) throw new KustomizeError(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    return value == null ? [] : [value];
  });
}

function kustomizationFile(dir: string): string {
  for (const name of ['kustomization.yaml', 'kustomization.yml', 'Kustomization']) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  throw new KustomizeError(`${dir}: no kustomization.yaml`);
}

function asKubeObject(value: unknown, where: string): KubeObject {
  if (
    !isObject(value) ||
    typeof value.apiVersion !== 'string' ||
    typeof value.kind !== 'string' ||
    !isObject(value.metadata) ||
    typeof value.metadata.name !== 'string'
  ) {
    throw new KustomizeError(`${where}: not a Kubernetes object with apiVersion, kind and metadata.name`);
  }
  if (!NAMESPACED_KINDS.has(value.kind) && !CLUSTER_KINDS.has(value.kind)) throw new KustomizeError(`${where}: kind ${value.kind} is not supported here`);
  return value as unknown as KubeObject;
}

/** Renders the kustomization in `dir` (as `kubectl kustomize dir` would, within the subset above). */
export function renderKustomization(dir: string): KubeObject[] {
  const file = kustomizationFile(dir);
  const [raw] = readYamlDocuments(file);
  if (!isObject(raw)) throw new KustomizeError(`${file}: not a mapping`);
  for (const field of Object.keys(raw)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new KustomizeError(`${file}: field "${field}" is not supported by this renderer`);
  }
  const kustomization = raw as unknown as Kustomization;

  let objects: KubeObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const target = path.resolve(dir, resource);
    if (statSync(target).isDirectory()) objects.push(...renderKustomization(target));
    else objects.push(...readYamlDocuments(target).map((doc, i) => asKubeObject(doc, `${target}#${i}`)));
  }
  assertUnique(objects, file);

  for (const [i, patch] of (kustomization.patches ?? []).entries()) objects = applyPatch(objects, patch, dir, `${file} patches[${i}]`);
  if (kustomization.namespace) objects = objects.map((object) => setNamespace(object, kustomization.namespace ?? '', file));
  for (const rule of kustomization.images ?? []) objects = objects.map((object) => setImages(object, rule));
  assertUnique(objects, file);
  return objects;
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
const versionOf = (apiVersion: string) => apiVersion.slice(apiVersion.indexOf('/') + 1);
export const objectKey = (object: KubeObject) => `${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;

function assertUnique(objects: KubeObject[], where: string): void {
  const seen = new Set<string>();
  for (const object of objects) {
    const key = objectKey(object);
    if (seen.has(key)) throw new KustomizeError(`${where}: ${key} is defined twice`);
    seen.add(key);
  }
}

const anchored = (pattern: string) => new RegExp(`^(?:${pattern})$`);

function matches(object: KubeObject, target: PatchTarget): boolean {
  const unsupported = Object.keys(target).filter((key) => !['group', 'version', 'kind', 'name', 'namespace'].includes(key));
  if (unsupported.length > 0) throw new KustomizeError(`patch target field(s) ${unsupported.join(', ')} are not supported by this renderer`);
  return (
    (target.group === undefined || target.group === groupOf(object.apiVersion)) &&
    (target.version === undefined || target.version === versionOf(object.apiVersion)) &&
    (target.kind === undefined || target.kind === object.kind) &&
    (target.name === undefined || anchored(target.name).test(object.metadata.name)) &&
    (target.namespace === undefined || anchored(target.namespace).test(object.metadata.namespace ?? ''))
  );
}

function applyPatch(objects: KubeObject[], patch: Patch, dir: string, where: string): KubeObject[] {
  const text = patch.path ? readFileSync(path.resolve(dir, patch.path), 'utf8') : patch.patch;
  if (!text) throw new KustomizeError(`${where}: needs "path" or "patch"`);
  const docs = parseAllDocuments(text).map((doc) => doc.toJS() as unknown);
  if (docs.length !== 1) throw new KustomizeError(`${where}: one patch document expected`);
  const body = docs[0];

  let targets: KubeObject[];
  if (patch.target) {
    targets = objects.filter((object) => matches(object, patch.target ?? {}));
  } else {
    const smp = asKubeObject(body, where);
    targets = objects.filter(
      (object) =>
        object.kind === smp.kind &&
        groupOf(object.apiVersion) === groupOf(smp.apiVersion) &&
        object.metadata.name === smp.metadata.name &&
        (smp.metadata.namespace === undefined || smp.metadata.namespace === object.metadata.namespace),
    );
  }
  if (targets.length === 0) throw new KustomizeError(`${where}: matches no resource`);

  return objects.map((object) => {
    if (!targets.includes(object)) return object;
    let patched: KubeObject;
    if (Array.isArray(body)) {
      patched = applyJson6902(object, body, where);
    } else if (isObject(body)) {
      // With a target, the patch's own name does not select anything (as in kustomize).
      const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = body;
      const mergeBody: JsonObject = isObject(metadata) ? { ...rest, metadata: patch.target ? { ...metadata, name: object.metadata.name } : metadata } : rest;
      patched = strategicMerge(object as unknown as JsonObject, mergeBody, where) as unknown as KubeObject;
    } else {
      throw new KustomizeError(`${where}: neither a strategic-merge patch nor a JSON 6902 patch`);
    }
    if (patched.metadata.name !== object.metadata.name && !patch.options?.allowNameChange) {
      throw new KustomizeError(`${where}: renames ${object.metadata.name} without options.allowNameChange`);
    }
    if (patched.kind !== object.kind) throw new KustomizeError(`${where}: changing a kind is not supported`);
    return patched;
  });
}

/** Strategic merge restricted to maps: lists would need per-field merge keys, so they are refused. */
function strategicMerge(base: JsonObject, patch: JsonObject, where: string): JsonObject {
  const out = clone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new KustomizeError(`${where}: patch directive ${key} is not supported`);
    if (value === null) delete out[key];
    else if (Array.isArray(value)) throw new KustomizeError(`${where}: list "${key}" in a strategic-merge patch is not supported (use a JSON 6902 patch)`);
    else if (isObject(value) && isObject(out[key])) out[key] = strategicMerge(out[key], value, where);
    else out[key] = clone(value);
  }
  return out;
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: Json;
}

function pointer(pathText: string, where: string): string[] {
  if (!pathText.startsWith('/')) throw new KustomizeError(`${where}: JSON pointer "${pathText}" must start with /`);
  return pathText
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function applyJson6902(object: KubeObject, ops: unknown[], where: string): KubeObject {
  const root = clone(object) as unknown as JsonObject;
  for (const raw of ops) {
    const op = raw as JsonPatchOp;
    if (!['add', 'replace', 'remove'].includes(op.op)) throw new KustomizeError(`${where}: JSON patch op "${op.op}" is not supported`);
    const tokens = pointer(op.path, where);
    const last = tokens.pop();
    if (last === undefined) throw new KustomizeError(`${where}: cannot ${op.op} the whole object`);
    let parent: Json = root;
    for (const token of tokens) {
      const next: Json | undefined = Array.isArray(parent) ? parent[Number(token)] : isObject(parent) ? parent[token] : undefined;
      if (next === undefined) throw new KustomizeError(`${where}: path ${op.path} does not exist`);
      parent = next;
    }
    if (op.op !== 'remove' && op.value === undefined) throw new KustomizeError(`${where}: ${op.op} ${op.path} needs a value`);
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (!Number.isInteger(index) || index < 0 || index > parent.length || (op.op !== 'add' && index >= parent.length)) {
        throw new KustomizeError(`${where}: index ${last} out of range at ${op.path}`);
      }
      if (op.op === 'add') parent.splice(index, 0, clone(op.value as Json));
      else if (op.op === 'replace') parent[index] = clone(op.value as Json);
      else parent.splice(index, 1);
    } else if (isObject(parent)) {
      if (op.op !== 'add' && !(last in parent)) throw new KustomizeError(`${where}: path ${op.path} does not exist`);
      if (op.op === 'remove') delete parent[last];
      else parent[last] = clone(op.value as Json);
    } else {
      throw new KustomizeError(`${where}: path ${op.path} does not exist`);
    }
  }
  return root as unknown as KubeObject;
}

function setNamespace(object: KubeObject, namespace: string, where: string): KubeObject {
  if (CLUSTER_KINDS.has(object.kind)) {
    if (object.kind === 'Namespace' && object.metadata.name !== namespace) {
      throw new KustomizeError(`${where}: Namespace ${object.metadata.name} differs from namespace ${namespace} (kustomize would rename it)`);
    }
    return object;
  }
  return { ...object, metadata: { ...object.metadata, namespace } };
}

/** `name[:tag][@digest]`, the tag being after the last ':' that follows the last '/'. */
export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest = '', digest] = image.split('@');
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const hasTag = colon > slash;
  return {
    name: hasTag ? withoutDigest.slice(0, colon) : withoutDigest,
    ...(hasTag && { tag: withoutDigest.slice(colon + 1) }),
    ...(digest !== undefined && { digest }),
  };
}

function rewriteImage(image: string, rule: ImageRule): string {
  const parsed = parseImage(image);
  if (parsed.name !== rule.name) return image;
  const name = rule.newName ?? parsed.name;
  if (rule.digest) return `${name}@${rule.digest}`;
  if (rule.newTag) return `${name}:${rule.newTag}`;
  return `${name}${parsed.tag ? `:${parsed.tag}` : ''}${parsed.digest ? `@${parsed.digest}` : ''}`;
}

/** The pod spec of a workload (Deployment, Job), if it has one. */
export function podSpecOf(object: KubeObject): JsonObject | undefined {
  const spec = (object as unknown as JsonObject).spec;
  if (!isObject(spec)) return undefined;
  const template = spec.template;
  if (isObject(template) && isObject(template.spec)) return template.spec;
  return undefined;
}

function setImages(object: KubeObject, rule: ImageRule): KubeObject {
  if (!podSpecOf(object)) return object;
  const copy = clone(object);
  const podSpec = podSpecOf(copy) as JsonObject;
  for (const field of ['containers', 'initContainers']) {
    const containers = podSpec[field];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (isObject(container) && typeof container.image === 'string') container.image = rewriteImage(container.image, rule);
    }
  }
  return copy;
}
