/**
 * Preemption in the simulator: priorities read from a trace (the openb {@code qos} column), a replay in which a pod
 * that fits nowhere evicts pods of lower priority as kube-scheduler would, its victims chosen by kube-scheduler's node
 * totals or through the extender's card-aware rule (core's {@code Evictions}), and what each costs. It must never
 * import Kubernetes types or the scheduler module.
 */
package io.elasticgpu.simulator.preemption;
