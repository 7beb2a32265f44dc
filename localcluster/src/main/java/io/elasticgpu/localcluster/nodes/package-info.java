/**
 * Fake GPU nodes for the e2e tests and the demo: kwok nodes with the capacity, labels and per-card inventory a node
 * running Elastic GPU's agent would have. It builds Kubernetes objects and must never import component code.
 */
package io.elasticgpu.localcluster.nodes;
