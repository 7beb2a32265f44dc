/**
 * The extender's view of the cluster, fed by informers: every node with its cards (from the node agent's
 * inventory) and what every pod holds there (from allocation annotations), plus this replica's binds in flight.
 * Rebuilt from the API alone after a restart; it must never call the API itself or make placement decisions.
 */
package io.elasticgpu.scheduler.cache;
