/**
 * What the extender decides for one pod: which of its asks the cluster can ever satisfy, which nodes can satisfy
 * them now and why the others cannot, how good each node is by the configured policy, and which cards each
 * container takes. Pure functions of a pod and node states; it must never do I/O or hold the cache's lock.
 */
package io.elasticgpu.scheduler.decision;
