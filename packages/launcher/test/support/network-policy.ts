import { BlockList, isIPv4 } from 'node:net';
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

/** Where an egress connection goes: a pod, or an address outside the cluster's pods. */
export type Destination = { peer: Peer } | { ip: string };

type PolicyPort = NonNullable<NonNullable<NonNullable<INetworkPolicy['spec']>['egress']>[number]['ports']>[number];

function portMatches(entry: PolicyPort, port: number, protocol: string, name: string): boolean {
  if (typeof entry.port !== 'number' || entry.endPort !== undefined) throw new Error(`${name}: only single numeric ports are evaluated by this test`);
  return (entry.protocol ?? 'TCP') === protocol && entry.port === port;
}

function inBlock(ip: string, block: { cidr: string; except?: string[] }): boolean {
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  const [network = '', prefix = ''] = block.cidr.split('/');
  if ((network.includes(':') ? 'ipv6' : 'ipv4') !== family) return false;
  const inside = new BlockList();
  inside.addSubnet(network, Number(prefix), family);
  if (!inside.check(ip, family)) return false;
  const excluded = new BlockList();
  for (const except of block.except ?? []) {
    const [net = '', bits = ''] = except.split('/');
    if ((net.includes(':') ? 'ipv6' : 'ipv4') === family) excluded.addSubnet(net, Number(bits), family);
  }
  return !excluded.check(ip, family);
}

/**
 * Whether `source` may open a connection to `destination` on `port` under Kubernetes' egress
 * NetworkPolicy semantics: a pod selected by no egress policy may go anywhere; a selected pod
 * only where one rule of one selecting policy allows. Pods are matched by selectors, addresses
 * by ipBlock (with its exceptions); anything else throws.
 */
export function egressAllowed(policies: INetworkPolicy[], source: Peer, destination: Destination, port: number, protocol = 'TCP'): boolean {
  const selecting = policies.filter((policy) => {
    const name = policy.metadata?.name ?? '(unnamed)';
    return (
      policy.metadata?.namespace === source.namespace &&
      (policy.spec?.policyTypes ?? []).includes('Egress') &&
      selects(policy.spec?.podSelector, source.labels, name)
    );
  });
  if (selecting.length === 0) return true;

  return selecting.some((policy) => {
    const name = policy.metadata?.name ?? '(unnamed)';
    return (policy.spec?.egress ?? []).some((rule) => {
      const toOk =
        !rule.to?.length ||
        rule.to.some((peer) => {
          if (peer.ipBlock) return 'ip' in destination && inBlock(destination.ip, peer.ipBlock);
          if (!('peer' in destination)) return false;
          if (!peer.podSelector && !peer.namespaceSelector) throw new Error(`${name}: an empty peer`);
          const namespaceOk = peer.namespaceSelector
            ? selects(peer.namespaceSelector, namespaceLabels(destination.peer), name)
            : destination.peer.namespace === policy.metadata?.namespace;
          return namespaceOk && selects(peer.podSelector, destination.peer.labels, name);
        });
      const portOk = !rule.ports?.length || rule.ports.some((entry) => portMatches(entry, port, protocol, name));
      return toOk && portOk;
    });
  });
}
