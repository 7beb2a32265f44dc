/**
 * A real Kubernetes control plane on loopback for end-to-end tests and for people: etcd, kube-apiserver (RBAC,
 * admission webhooks), kube-controller-manager, kube-scheduler from a given configuration, and kwok, started from
 * upstream binaries, waited for, and torn down without leaving processes or ports behind. It must never import
 * Elastic GPU's component code: it runs the peers those components are tested against.
 */
package io.elasticgpu.localcluster.controlplane;
