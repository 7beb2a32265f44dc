/**
 * {@code bench/run cluster-replay}: an openb trace replayed through the real kube-scheduler and the extender as the
 * Helm chart runs them, on kwok nodes, audited from the API alone and compared with the simulator on the same order.
 */
package io.elasticgpu.bench.cluster;
