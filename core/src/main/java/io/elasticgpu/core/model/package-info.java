/**
 * The placement engine's vocabulary: cards, the links between them, nodes, requests and placements, all immutable
 * records that validate themselves. It must never import Kubernetes types, I/O or anything outside the JDK.
 */
package io.elasticgpu.core.model;
