import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';

/** A pod that opens a connection, or receives one. */
export interface Peer {
  namespace: string;
  labels: Record<string, string>;
  /** Labels of the pod's namespace; `kubernetes.io/metadata.name` is always added. */
  namespaceLabels?: Record<string, string>;
}

type Selector = NonNullable<NonNullable<INetworkPolicy['spec']>['podSelector']>;

function selects(selector: Selector | undefined, labels: Record<string, string>, what: string): boolean {
  if (!selector) return true;
  if (selector.matchExpressions?.length) throw new Error(`${what}: matchExpressions are not evaluated by this test; use matchLabels`);
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

const namespaceLabels = (peer: Peer) => ({ ...peer.namespaceLabels, 'kubernetes.io/metadata.name': peer.namespace });

/**
 * Whether `source` may open a TCP connection to `target` on `port` under Kubernetes' ingress
 * NetworkPolicy semantics: a pod selected by no ingress policy accepts everything; a selected
 * pod accepts what at least one rule of one selecting policy allows. Only the parts used by
 * deploy/kubernetes are evaluated (matchLabels, numeric TCP ports); anything else throws, so the
 * test never judges a policy it does not understand.
 */
export function ingressAllowed(policies: INetworkPolicy[], source: Peer, target: Peer, port: number): boolean {
  const selecting = policies.filter((policy) => {
    const name = policy.metadata?.name ?? '(unnamed)';
    const types = policy.spec?.policyTypes ?? ['Ingress'];
    return policy.metadata?.namespace === target.namespace && types.includes('Ingress') && selects(policy.spec?.podSelector, target.labels, name);
  });
  if (selecting.length === 0) return true;

  return selecting.some((policy) => {
    const name = policy.metadata?.name ?? '(unnamed)';
    return (policy.spec?.ingress ?? []).some((rule) => {
      const fromOk =
        !rule.from?.length ||
        rule.from.some((peer) => {
          if (peer.ipBlock) throw new Error(`${name}: ipBlock is not evaluated by this test`);
          if (!peer.podSelector && !peer.namespaceSelector) throw new Error(`${name}: an empty peer`);
          const namespaceOk = peer.namespaceSelector
            ? selects(peer.namespaceSelector, namespaceLabels(source), name)
            : source.namespace === policy.metadata?.namespace;
          return namespaceOk && selects(peer.podSelector, source.labels, name);
        });
      const portOk =
        !rule.ports?.length ||
        rule.ports.some((entry) => {
          if (typeof entry.port !== 'number' || entry.endPort !== undefined) throw new Error(`${name}: only single numeric ports are evaluated by this test`);
          return (entry.protocol ?? 'TCP') === 'TCP' && entry.port === port;
        });
      return fromOk && portOk;
    });
  });
}
