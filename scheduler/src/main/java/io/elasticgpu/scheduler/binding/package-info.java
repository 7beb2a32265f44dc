/**
 * Binding a pod: choosing its cards on the node kube-scheduler picked, reserving them in that node's ledger in the
 * API server with optimistic concurrency (so that any number of extender replicas never give a card more than its
 * capacity), writing the allocation into the pod's annotations and binding it; undoing every step on failure. It
 * talks to the API only through {@link io.elasticgpu.scheduler.binding.ClusterApi}.
 */
package io.elasticgpu.scheduler.binding;
