/**
 * The contract between Elastic GPU's components and with users, version v1alpha1: extended resource names, node
 * label keys, annotation keys and the JSON of the per-card node inventory. Every component reads these names from
 * here; this package must never import placement, scheduler, node or controller code.
 */
package io.elasticgpu.api.v1alpha1;
