/**
 * The extender's view of the cluster, rebuilt from the API alone: nodes with their cards, what each pod and each DRA
 * claim holds on them, and this replica's assumptions (binds in flight, filter holds), kept behind
 * {@link io.elasticgpu.scheduler.cache.ClusterCache}'s one lock and read as immutable snapshots of core's node states.
 * It must never import the fabric8 client, core's {@code policy} or {@code placement}, or the scheduler's other
 * packages: it neither calls the API server nor decides where a pod goes.
 */
package io.elasticgpu.scheduler.cache;
