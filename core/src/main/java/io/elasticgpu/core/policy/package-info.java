/**
 * Where on a node and how good: the scoring policies (the FGD paper's six, our production binpack and spread, and
 * {@code elastic}), the card choice they share, including topology-aware choice for multi-card requests, and the
 * fragmentation measure. Policies are pure functions of a request and a node state; this package must never import
 * Kubernetes types, read a clock or do I/O.
 */
package io.elasticgpu.core.policy;
