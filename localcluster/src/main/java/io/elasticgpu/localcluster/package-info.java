/**
 * The local cluster's verbs, {@code up}, {@code status} and {@code down} (and {@code demo}, in {@code demo}), as
 * picocli commands of the lab's one program ({@code e2e/bin/cluster VERB}, {@code bench/run VERB}): they parse and
 * print, and leave the control plane to {@code controlplane} and the nodes to {@code nodes}. Nothing here may import
 * the benchmarks, which build on this module.
 */
package io.elasticgpu.localcluster;
